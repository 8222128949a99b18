/*
 * ex2 wrapper: PTX ISA §9.7.3.22 "Floating Point Instructions: ex2" (approximate 2^x, MUFU.EX2).
 * ex2(-inf) = +0, which the online softmax relies on for masked scores.
 */
#ifndef FLASHC_PTX_EX2_H
#define FLASHC_PTX_EX2_H

static __device__ __forceinline__ float ex2_approx_ftz_f32(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(r) : "f"(x));
    return r;
}

#endif /* FLASHC_PTX_EX2_H */
