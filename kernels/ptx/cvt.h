/*
 * cvt wrappers: PTX ISA §9.7.9.21 "Data Movement and Conversion Instructions: cvt".
 * Packed forms put the FIRST source operand in the UPPER half, so the helpers below take
 * (lo, hi) and swap.
 */
#ifndef FLASHC_PTX_CVT_H
#define FLASHC_PTX_CVT_H

#include <stdint.h>

/* Two f32 -> packed f16x2, round to nearest even (sm_80+). */
static __device__ __forceinline__ uint32_t cvt_rn_f16x2_f32(float lo, float hi)
{
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* Two f32 -> packed bf16x2, round to nearest even (sm_80+). */
static __device__ __forceinline__ uint32_t cvt_rn_bf16x2_f32(float lo, float hi)
{
    uint32_t r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* f16 bits -> f32 (exact). */
static __device__ __forceinline__ float cvt_f32_f16(uint16_t h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
    return f;
}

/* bf16 bits -> f32 (exact: bf16 is the upper half of an f32). */
static __device__ __forceinline__ float cvt_f32_bf16(uint16_t h)
{
    return __uint_as_float((uint32_t)h << 16);
}

/* Declared for the host pass too; device code for sm_80/86 must not reach it. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
/* Two f32 -> packed e4m3x2 with saturation to +-448 (sm_89+). Byte 0 = lo. */
static __device__ __forceinline__ uint16_t cvt_rn_satfinite_e4m3x2_f32(float lo, float hi)
{
    uint16_t r;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
    return r;
}

/* Two e4m3 -> packed f16x2, exact (every e4m3 value is an f16), from the low (hi = 0: bytes 0-1)
   or high (hi = 1: bytes 2-3) half of x; the lower byte becomes the lower f16 (sm_89+). The half
   is picked inside the asm so that ptxas selects it in the conversion instead of shifting. */
static __device__ __forceinline__ uint32_t cvt_rn_f16x2_e4m3x2(uint32_t x, int hi)
{
    uint32_t r;
    if (hi)
        asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f16x2.e4m3x2 %0, h;\n}\n" : "=r"(r) : "r"(x));
    else
        asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f16x2.e4m3x2 %0, l;\n}\n" : "=r"(r) : "r"(x));
    return r;
}
#endif

#endif /* FLASHC_PTX_CVT_H */
