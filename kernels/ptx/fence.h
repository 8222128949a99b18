/*
 * fence wrappers: PTX ISA §9.7.13.4 "Parallel Synchronization and Communication Instructions:
 * membar / fence" (proxy and mbarrier-init forms).
 */
#ifndef FLASHC_PTX_FENCE_H
#define FLASHC_PTX_FENCE_H

/* Makes mbarrier.init visible to the async proxy (TMA complete_tx) and other threads; issue after
   initialising barriers and before the block-wide barrier that publishes them. */
static __device__ __forceinline__ void fence_mbarrier_init_release_cluster(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* Orders this thread's generic-proxy shared-memory accesses with later async-proxy accesses
   (wgmma operand reads, TMA stores) of the same memory. */
static __device__ __forceinline__ void fence_proxy_async_shared_cta(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

#endif /* FLASHC_PTX_FENCE_H */
