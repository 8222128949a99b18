/*
 * ldmatrix wrappers: PTX ISA §9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix".
 * Lanes 8i..8i+7 supply the 16-byte row addresses of matrix i; without .trans lane l receives
 * row l>>2, elements 2(l&3) and 2(l&3)+1 of each matrix; with .trans the matrix is transposed.
 */
#ifndef FLASHC_PTX_LDMATRIX_H
#define FLASHC_PTX_LDMATRIX_H

#include <stdint.h>

/* Four 8x8 b16 matrices; `smem_addr` is this lane's row address in the shared window. */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x4_shared_b16(uint32_t r[4], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

/* Same, transposed: lane l receives column l>>2, rows 2(l&3) and 2(l&3)+1. */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x4_trans_shared_b16(uint32_t r[4],
                                                                                     uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

/* Two transposed matrices (lanes 0-15 supply the row addresses; the others' are ignored). */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x2_trans_shared_b16(uint32_t r[2],
                                                                                     uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem_addr));
}

/* Generic pointer -> 32-bit shared-window address (cvta.to.shared, PTX ISA §9.7.9.17). */
static __device__ __forceinline__ uint32_t cvta_to_shared_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

#endif /* FLASHC_PTX_LDMATRIX_H */
