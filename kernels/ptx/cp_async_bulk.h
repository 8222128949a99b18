/*
 * Bulk tensor copy (TMA) wrappers: PTX ISA §9.7.9.25.5 "Data Movement and Conversion
 * Instructions: cp.async.bulk.tensor", §9.7.9.25.6 "cp.async.bulk.commit_group / wait_group" and
 * §9.7.9.26 "prefetch.tensormap".
 * `tmap` is the generic address of a CUtensorMap in param (__grid_constant__), const or global
 * memory; coordinates are signed element indices, innermost first; boxes that reach outside the
 * tensor are zero-filled and still count their full size towards the mbarrier's transactions.
 */
#ifndef FLASHC_PTX_CP_ASYNC_BULK_H
#define FLASHC_PTX_CP_ASYNC_BULK_H

#include <stdint.h>

/* L2 cache-hint policies (createpolicy.fractional encodings, as CUTLASS's CacheHintSm90). */
#define CP_ASYNC_BULK_EVICT_NORMAL 0x1000000000000000ull
#define CP_ASYNC_BULK_EVICT_FIRST 0x12F0000000000000ull
#define CP_ASYNC_BULK_EVICT_LAST 0x14F0000000000000ull

/* Global -> shared, 4-d box, completion counted in bytes on mbarrier `bar`. */
static __device__ __forceinline__ void cp_async_bulk_tensor_4d_shared_global(uint32_t dst, const void *tmap,
                                                                             int32_t c0, int32_t c1, int32_t c2,
                                                                             int32_t c3, uint32_t bar,
                                                                             uint64_t cache_policy)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6], %7;\n"
                 :
                 : "r"(dst), "l"((uint64_t)tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar), "l"(cache_policy)
                 : "memory");
}

/* Shared -> global, 4-d box, tracked by the issuing thread's bulk async-groups. Elements of the
   box outside the tensor are not written (clipping). The source must stay unchanged until
   cp_async_bulk_wait_group_read says it has been read. */
static __device__ __forceinline__ void cp_async_bulk_tensor_4d_global_shared(const void *tmap, int32_t c0, int32_t c1,
                                                                             int32_t c2, int32_t c3, uint32_t src)
{
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n"
                 :
                 : "l"((uint64_t)tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
                 : "memory");
}

/* Closes the thread's pending bulk stores into one bulk async-group. */
static __device__ __forceinline__ void cp_async_bulk_commit_group(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until at most N of the thread's bulk async-groups still read their shared source. */
#define cp_async_bulk_wait_group_read(N) asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory")

/* Waits until at most N of the thread's bulk async-groups are incomplete (writes done). */
#define cp_async_bulk_wait_group(N) asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory")

/* Bring a tensor map into the descriptor cache ahead of its first use. */
static __device__ __forceinline__ void prefetch_tensormap(const void *tmap)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tmap) : "memory");
}

#endif /* FLASHC_PTX_CP_ASYNC_BULK_H */
