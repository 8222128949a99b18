/*
 * prefetch wrappers: PTX ISA §9.7.9.15 "Data Movement and Conversion Instructions: prefetch,
 * prefetchu" (sm_20+): bring a line into a cache level without a register result.
 */
#ifndef FLASHC_PTX_PREFETCH_H
#define FLASHC_PTX_PREFETCH_H

/* the cache line holding `gmem` into L2 */
static __device__ __forceinline__ void prefetch_global_L2(const void *gmem)
{
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(gmem));
}

#endif /* FLASHC_PTX_PREFETCH_H */
