/*
 * elect wrapper: PTX ISA §9.7.13.14 "Parallel Synchronization and Communication Instructions:
 * elect.sync" (sm_90+). All lanes in `membermask` execute it; exactly one gets 1.
 */
#ifndef FLASHC_PTX_ELECT_H
#define FLASHC_PTX_ELECT_H

#include <stdint.h>

static __device__ __forceinline__ uint32_t elect_sync(void)
{
    uint32_t elected;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "elect.sync _|p, 0xffffffff;\n"
                 "selp.b32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(elected));
    return elected;
}

#endif /* FLASHC_PTX_ELECT_H */
