/*
 * mma.sync wrappers (warp-level matrix multiply-accumulate).
 * PTX ISA §9.7.14.5 "Matrix multiply-accumulate operation using mma instruction", shapes
 * m16n8k16 (§9.7.14.5.8, 16-bit inputs) and m16n8k32 (§9.7.14.5.9, 8-bit inputs).
 * Fragment layouts (g = lane>>2, t = lane&3):
 *   A (16x16, row): a0 = (g, 2t..2t+1), a1 = (g+8, 2t..), a2 = (g, 2t+8..), a3 = (g+8, 2t+8..)
 *   B (16x8, col):  b0 = (k 2t..2t+1, n g), b1 = (k 2t+8.., n g)
 *   C/D (16x8):     d0,d1 = (g, 2t..2t+1), d2,d3 = (g+8, 2t..2t+1)
 */
#ifndef FLASHC_PTX_MMA_H
#define FLASHC_PTX_MMA_H

#include <stdint.h>

/* D = A*B + D, f16 inputs, f32 accumulate (sm_80+). */
static __device__ __forceinline__ void mma_m16n8k16_row_col_f32_f16_f16_f32(float d[4], const uint32_t a[4],
                                                                          uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* D = A*B + D, bf16 inputs, f32 accumulate (sm_80+). */
static __device__ __forceinline__ void mma_m16n8k16_row_col_f32_bf16_bf16_f32(float d[4], const uint32_t a[4],
                                                                            uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* Declared for the host pass too; device code for sm_80/86 must not reach it. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
/* D = A*B + D, e4m3 inputs, f32 accumulate (sm_89+). A: 4 regs of 4 bytes, B: 2 regs. */
static __device__ __forceinline__ void mma_m16n8k32_row_col_f32_e4m3_e4m3_f32(float d[4], const uint32_t a[4],
                                                                            uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

/* D = A*B + D, s8 inputs, s32 accumulate (sm_80+). */
static __device__ __forceinline__ void mma_m16n8k32_row_col_s32_s8_s8_s32(int32_t d[4], const uint32_t a[4],
                                                                        uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* D = A*B + D, u8 A, s8 B, s32 accumulate (sm_80+). */
static __device__ __forceinline__ void mma_m16n8k32_row_col_s32_u8_s8_s32(int32_t d[4], const uint32_t a[4],
                                                                        uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#endif /* FLASHC_PTX_MMA_H */
