/*
 * Thread-block cluster wrappers (sm_90+, PTX ISA 7.8+): PTX ISA "Special Registers:
 * %cluster_ctarank", "Parallel Synchronization and Communication Instructions:
 * barrier.cluster" and "Data Movement and Conversion Instructions: mapa, ld" (the .shared::cluster
 * state space: distributed shared memory). Addresses are 32-bit shared-window addresses; a CTA's own
 * shared::cta address maps to any cluster CTA's copy of the same variable with mapa.
 * Below sm_90 they trap: the host launches clusters only on sm_90+.
 */
#ifndef FLASHC_PTX_CLUSTER_H
#define FLASHC_PTX_CLUSTER_H

#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define FLASHC_PTX_HAS_CLUSTER 1
#else
#define FLASHC_PTX_HAS_CLUSTER 0
#endif

/* %cluster_ctarank: this CTA's rank in its cluster, 0 .. cluster size - 1 */
static __device__ __forceinline__ uint32_t cluster_ctarank(void)
{
    uint32_t r = 0;
#if FLASHC_PTX_HAS_CLUSTER
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#else
    __trap();
#endif
    return r;
}

/* barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of every CTA of the
   cluster arrives, and this thread's earlier shared-memory writes are visible cluster-wide to the
   threads past the wait (the non-.aligned forms: any thread may call it on its own path) */
static __device__ __forceinline__ void barrier_cluster_sync(void)
{
#if FLASHC_PTX_HAS_CLUSTER
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#else
    __trap();
#endif
}

/* barrier.cluster.arrive.relaxed + barrier.cluster.wait: the same rendezvous without ordering this
   thread's earlier memory accesses (no MEMBAR.ALL.GPU before it, which .release costs): for a barrier
   whose only job is that no CTA proceeds (or exits) before all have arrived */
static __device__ __forceinline__ void barrier_cluster_sync_relaxed(void)
{
#if FLASHC_PTX_HAS_CLUSTER
    asm volatile("barrier.cluster.arrive.relaxed;\nbarrier.cluster.wait;\n" ::: "memory");
#else
    __trap();
#endif
}

/* mapa.shared::cluster: the address of the variable at shared::cta address `addr` in cluster CTA `rank` */
static __device__ __forceinline__ uint32_t mapa_shared_cluster(uint32_t addr, uint32_t rank)
{
    uint32_t r = 0;
#if FLASHC_PTX_HAS_CLUSTER
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
#else
    __trap();
#endif
    return r;
}

/* ld.shared::cluster.f32 / .v4.f32: a load from a cluster CTA's shared memory (mapa address) */
static __device__ __forceinline__ float ld_shared_cluster_f32(uint32_t addr)
{
    float v = 0.f;
#if FLASHC_PTX_HAS_CLUSTER
    asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
#else
    __trap();
#endif
    return v;
}

static __device__ __forceinline__ float4 ld_shared_cluster_v4_f32(uint32_t addr)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#if FLASHC_PTX_HAS_CLUSTER
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr)
                 : "memory");
#else
    __trap();
#endif
    return v;
}

#endif /* FLASHC_PTX_CLUSTER_H */
