/*
 * timer wrappers: PTX ISA §10 "Special Registers" (%globaltimer, %smid). Dev instrumentation only
 * (fwd_kernel.cuh FWD_TILE_TIMING); clock64() is CUDA's own.
 */
#ifndef FLASHC_PTX_TIMER_H
#define FLASHC_PTX_TIMER_H

#include <stdint.h>

/* Nanoseconds of a clock common to all SMs (so CTAs on different SMs can be lined up). */
static __device__ __forceinline__ uint64_t globaltimer_u64(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t) :: "memory");
    return t;
}

/* The SM this thread runs on. */
static __device__ __forceinline__ uint32_t smid_u32(void)
{
    uint32_t s;
    asm volatile("mov.u32 %0, %%smid;\n" : "=r"(s));
    return s;
}

#endif /* FLASHC_PTX_TIMER_H */
