/*
 * stmatrix wrapper: PTX ISA §9.7.14.5.16 "Warp-level matrix store instruction: stmatrix" (sm_90+).
 * The register side is the ldmatrix / mma fragment: lane l holds row l>>2, elements 2(l&3) and
 * 2(l&3)+1 of each 8x8 b16 matrix; lanes 8i..8i+7 supply the 16-byte row addresses of matrix i.
 */
#ifndef FLASHC_PTX_STMATRIX_H
#define FLASHC_PTX_STMATRIX_H

#include <stdint.h>

/* Four 8x8 b16 matrices; `smem_addr` is this lane's row address in the shared window. */
static __device__ __forceinline__ void stmatrix_sync_aligned_m8n8_x4_shared_b16(uint32_t smem_addr, const uint32_t r[4])
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}

#endif /* FLASHC_PTX_STMATRIX_H */
