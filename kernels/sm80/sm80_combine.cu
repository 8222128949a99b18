/*
 * sm80 split-KV combine: merges the num_splits partial outputs of each (query row, head), which the
 * forward kernel stored already normalised by their own row sums, weighting split s by
 * exp(lse_s - lse), lse = log sum_s exp(lse_s). Writes O in the output dtype and LSE.
 *
 * Budget: 128 threads, one warp per (row, head); lane owns columns lane + 32c (c < d/32 <= 8);
 * no shared memory. Grid: x = query-row groups of 4, y = query head, z = batch.
 */
#include <stdint.h>
#include <math.h>
#include "sm80/sm80_fwd.h"
#include "ptx/cvt.h"

#define COMBINE_WARPS 4
#define COMBINE_THREADS (COMBINE_WARPS * 32)
#define COMBINE_MAX_COLS_PER_LANE 8 /* head dim 256 / 32 lanes */

static __device__ __forceinline__ uint16_t pack_one(float x, flashc_dtype dt)
{
    uint32_t v = dt == FLASHC_DTYPE_BF16 ? cvt_rn_bf16x2_f32(x, 0.f) : cvt_rn_f16x2_f32(x, 0.f);
    return (uint16_t)(v & 0xffffu);
}

__global__ void __launch_bounds__(COMBINE_THREADS) sm80_combine_kernel(const __grid_constant__ sm80_fwd_params prm)
{
    const flashc_problem *p = &prm.p;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int bi = blockIdx.z, h = blockIdx.y;
    const int i = blockIdx.x * COMBINE_WARPS + warp;
    int q_off = 0, seqlen_q = p->s_q;
    if (p->q_varlen) {
        q_off = p->cu_seqlens_q[bi];
        seqlen_q = p->cu_seqlens_q[bi + 1] - q_off;
    }
    if (i >= seqlen_q) return;
    const int64_t grow = (p->q_varlen ? (int64_t)q_off : (int64_t)bi * p->s_q) + i;
    const int splits = prm.num_splits, d = p->d;

    float mx = -INFINITY;
    for (int s = 0; s < splits; ++s) mx = fmaxf(mx, prm.ws_lse[((int64_t)s * p->h_q + h) * p->total_q + grow]);
    float acc[COMBINE_MAX_COLS_PER_LANE];
#pragma unroll
    for (int c = 0; c < COMBINE_MAX_COLS_PER_LANE; ++c) acc[c] = 0.f;
    float sum = 0.f;
    if (mx != -INFINITY) {
        for (int s = 0; s < splits; ++s) {
            float w = expf(prm.ws_lse[((int64_t)s * p->h_q + h) * p->total_q + grow] - mx);
            if (w == 0.f) continue; /* empty split: its partial holds zeros, skip the reads */
            sum += w;
            const float *src = prm.ws_o + (((int64_t)s * p->total_q + grow) * p->h_q + h) * d;
#pragma unroll
            for (int c = 0; c < COMBINE_MAX_COLS_PER_LANE; ++c)
                if (lane + 32 * c < d) acc[c] += w * src[lane + 32 * c];
        }
    }
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    uint16_t *dst = (uint16_t *)p->o + (int64_t)bi * p->o_stride[0] + (int64_t)(q_off + i) * p->o_stride[1] +
                    (int64_t)h * p->o_stride[2];
#pragma unroll
    for (int c = 0; c < COMBINE_MAX_COLS_PER_LANE; ++c)
        if (lane + 32 * c < d) dst[lane + 32 * c] = pack_one(acc[c] * inv, p->out_dtype);
    if (p->lse && lane == 0)
        p->lse[(int64_t)bi * p->lse_stride[0] + (int64_t)h * p->lse_stride[1] + q_off + i] =
            sum > 0.f ? mx + logf(sum) : -INFINITY;
}

extern "C" cudaError_t flashc_sm80_combine(const sm80_fwd_params *prm, cudaStream_t stream)
{
    const flashc_problem *p = &prm->p;
    dim3 grid((p->s_q + COMBINE_WARPS - 1) / COMBINE_WARPS, p->h_q, p->b);
    sm80_combine_kernel<<<grid, COMBINE_THREADS, 0, stream>>>(*prm);
    return cudaGetLastError();
}
