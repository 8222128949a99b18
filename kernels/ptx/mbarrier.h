/*
 * mbarrier wrappers: PTX ISA §9.7.13.15 "Parallel Synchronization and Communication Instructions:
 * mbarrier". Barriers live in shared memory and are addressed by their 32-bit shared address.
 * Phase rule: a freshly initialised barrier reports its previous phase (parity 1) as complete, so
 * producers wait their "empty" barriers with parity 1 first and consumers wait "full" with 0.
 */
#ifndef FLASHC_PTX_MBARRIER_H
#define FLASHC_PTX_MBARRIER_H

#include <stdint.h>

/* mbarrier.init: `count` arrivals complete a phase (§9.7.13.15.9). One thread initialises. */
static __device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* mbarrier.arrive: one arrival on the current phase (§9.7.13.15.13). */
static __device__ __forceinline__ void mbarrier_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* mbarrier.arrive.expect_tx: arrive and announce `bytes` of asynchronous transactions (TMA)
   that must also land before the phase completes (§9.7.13.15.13). */
static __device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

/* mbarrier.try_wait.parity: 1 once the phase with the given parity has completed (§9.7.13.15.16).
   try_wait suspends the thread for a system-dependent time before answering 0. */
static __device__ __forceinline__ uint32_t mbarrier_try_wait_parity(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.b32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done;
}

/* Block until the phase with `parity` has completed. */
static __device__ __forceinline__ void mbarrier_wait_parity(uint32_t bar, uint32_t parity)
{
    while (!mbarrier_try_wait_parity(bar, parity)) {
    }
}

#endif /* FLASHC_PTX_MBARRIER_H */
