/*
 * Named barrier wrappers: PTX ISA §9.7.13.1 "Parallel Synchronization and Communication
 * Instructions: bar, barrier". Id 0 is __syncthreads(); ids 1..15 are free for the kernel.
 * `threads` counts every participant (sync and arrive) and is a multiple of 32.
 */
#ifndef FLASHC_PTX_BAR_H
#define FLASHC_PTX_BAR_H

#include <stdint.h>

/* bar.sync: wait until `threads` threads have arrived at barrier `id` (this one included). */
static __device__ __forceinline__ void bar_sync(uint32_t id, uint32_t threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* bar.arrive: count this thread at barrier `id` without waiting. */
static __device__ __forceinline__ void bar_arrive(uint32_t id, uint32_t threads)
{
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

#endif /* FLASHC_PTX_BAR_H */
