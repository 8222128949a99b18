/*
 * cp.async wrappers: PTX ISA §9.7.9.25.3 "Data Movement and Conversion Instructions: cp.async",
 * with cp.async.commit_group / cp.async.wait_group (§9.7.9.25.3.2-3). sm_80+.
 */
#ifndef FLASHC_PTX_CP_ASYNC_H
#define FLASHC_PTX_CP_ASYNC_H

#include <stdint.h>

#define CP_ASYNC_CHUNK_BYTES 16

/* 16-byte global -> shared copy that bypasses L1 (.cg). src_bytes = 0 writes 16 zero bytes and
   reads nothing (the source address must still be a valid-looking pointer, it is not dereferenced). */
static __device__ __forceinline__ void cp_async_cg_shared_global_16(uint32_t smem_addr, const void *gmem,
                                                                  uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem),
                 "r"(src_bytes)
                 : "memory");
}

/* The same copy with the .L2::128B prefetch size: on a miss L2 fetches the whole 128-byte line
   from DRAM, not only the sectors asked for (a hint; the data copied is the same). */
static __device__ __forceinline__ void cp_async_cg_shared_global_16_l2_128b(uint32_t smem_addr, const void *gmem,
                                                                          uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem),
                 "r"(src_bytes)
                 : "memory");
}

static __device__ __forceinline__ void cp_async_commit_group(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most N of this thread's committed groups are pending (N: integer constant). */
#define CP_ASYNC_WAIT_GROUP(N) asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory")

#endif /* FLASHC_PTX_CP_ASYNC_H */
