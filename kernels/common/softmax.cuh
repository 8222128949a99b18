/*
 * Device helpers shared by the GPU paths: quad reductions for the mma accumulator layout (one
 * row's values are spread over the 4 lanes of a quad), whole-warp reductions, the mask predicate
 * of flashc.h, and the softcap transform. Plain static __device__ functions.
 */
#ifndef FLASHC_COMMON_SOFTMAX_CUH
#define FLASHC_COMMON_SOFTMAX_CUH

#include <math.h>
#include <stdint.h>

#define FLASHC_LOG2E 1.4426950408889634f /* log2(e): exp(x) = exp2(x * log2(e)) */
#define FLASHC_LN2 0.6931471805599453f   /* ln(2): natural log from log2 */
#define FLASHC_FULL_WARP_MASK 0xffffffffu
#define FLASHC_QUAD_SHUFFLE_1 1 /* lanes 4g..4g+3 hold one row of an mma accumulator */
#define FLASHC_QUAD_SHUFFLE_2 2

static __device__ __forceinline__ float quad_max(float x)
{
    x = fmaxf(x, __shfl_xor_sync(FLASHC_FULL_WARP_MASK, x, FLASHC_QUAD_SHUFFLE_1));
    x = fmaxf(x, __shfl_xor_sync(FLASHC_FULL_WARP_MASK, x, FLASHC_QUAD_SHUFFLE_2));
    return x;
}

static __device__ __forceinline__ float quad_sum(float x)
{
    x += __shfl_xor_sync(FLASHC_FULL_WARP_MASK, x, FLASHC_QUAD_SHUFFLE_1);
    x += __shfl_xor_sync(FLASHC_FULL_WARP_MASK, x, FLASHC_QUAD_SHUFFLE_2);
    return x;
}

/* Whole-warp reductions (every lane gets the result), e.g. over one value per lane. */
static __device__ __forceinline__ float warp_max(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(FLASHC_FULL_WARP_MASK, x, o));
    return x;
}

static __device__ __forceinline__ float warp_sum(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(FLASHC_FULL_WARP_MASK, x, o);
    return x;
}

/* flashc.h mask: query i (of seqlen_q) sees key j (of seqlen_k) iff j < seqlen_k and
   i + diag - wl <= j <= i + diag + wr, with diag = seqlen_k - seqlen_q and -1 = unbounded. */
static __device__ __forceinline__ int key_visible(int i, int j, int seqlen_k, int diag, int wl, int wr)
{
    if (j >= seqlen_k) return 0;
    if (wr >= 0 && j > i + diag + wr) return 0;
    if (wl >= 0 && j < i + diag - wl) return 0;
    return 1;
}

/* softcap * tanh(s / softcap). The build's --use_fast_math turns tanhf into tanh.approx.f32
   (PTX ISA, floating-point tanh: maximum relative error 2^-10.987): a score error of ~5e-4 * |s|,
   inside the GPU tests' output tolerances. */
static __device__ __forceinline__ float apply_softcap(float s, float softcap, float inv_softcap)
{
    return softcap * tanhf(s * inv_softcap);
}

/* ALiBi term of flashc.h: -slope * |i + diag - j|. */
static __device__ __forceinline__ float alibi_term(float slope, int i, int j, int diag)
{
    return -slope * fabsf((float)(i + diag - j));
}

#endif /* FLASHC_COMMON_SOFTMAX_CUH */
