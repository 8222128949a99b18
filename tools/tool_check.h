/* Dev tools (the .cu programs in tools/, not the library): a failed CUDA call ends the tool with its message.
   The library itself never exits; these are stand-alone measurement programs. */
#ifndef FLASHC_TOOL_CHECK_H
#define FLASHC_TOOL_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_) {                                                                                  \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
