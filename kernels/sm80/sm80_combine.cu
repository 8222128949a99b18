/*
 * sm80 split-KV combine: merges the num_splits partial outputs of each (query row, head), which the
 * forward kernel stored already normalised by their own row sums, weighting split s by
 * exp(lse_s - lse), lse = log sum_s exp(lse_s). Writes O in the output dtype and LSE.
 *
 * Budget: 128 threads, one warp per (row, head) pair, no shared memory. Lane s holds the LSE of
 * splits s and s + 32 (SM80_MAX_SPLITS 64), so the max and the weights take one round of loads and
 * warp shuffles instead of a dependent load per split; lane owns column pairs 2 lane + 64 c
 * (c < d / 64), and the partial rows of all splits are read unrolled, so their loads are in flight
 * together. Grid: x = (row, head) pairs of a batch in groups of COMBINE_WARPS (heads fastest, so a
 * decode step's heads fill the CTAs), z = batch.
 *
 * The forward kernel fires the launch of this grid early (programmatic dependent launch, sm_90:
 * griddepcontrol); griddep_wait below holds every read until that grid has finished and its
 * writes are visible.
 */
#include <stdint.h>
#include <math.h>
#include "sm80/sm80_fwd.h"
#include "ptx/cvt.h"
#include "ptx/griddepcontrol.h"
#include "common/softmax.cuh"

#define COMBINE_WARPS 4
#define COMBINE_THREADS (COMBINE_WARPS * 32)
#define COMBINE_LSE_PER_LANE (SM80_MAX_SPLITS / 32) /* splits lane, lane + 32 */
#define COMBINE_PAIR_COLS 64                        /* columns of one float2 pass of a warp */
#define COMBINE_MAX_PASSES (256 / COMBINE_PAIR_COLS) /* head dim 256 */
#define COMBINE_SPLIT_UNROLL 4                      /* partial rows in flight per warp */
#define COMBINE_STR(x) #x
#define COMBINE_PRAGMA(x) _Pragma(COMBINE_STR(x)) /* a #pragma whose argument is a macro */

static __device__ __forceinline__ uint32_t pack_pair(float x, float y, flashc_dtype dt)
{
    return dt == FLASHC_DTYPE_BF16 ? cvt_rn_bf16x2_f32(x, y) : cvt_rn_f16x2_f32(x, y);
}

__global__ void __launch_bounds__(COMBINE_THREADS) sm80_combine_kernel(const __grid_constant__ sm80_fwd_params prm)
{
    const flashc_problem *p = &prm.p;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int bi = blockIdx.z;
    const int pair = blockIdx.x * COMBINE_WARPS + warp;
    const int i = pair / p->h_q, h = pair - i * p->h_q;
    int q_off = 0, seqlen_q = p->s_q;
    if (p->q_varlen) {
        q_off = p->cu_seqlens_q[bi];
        seqlen_q = p->cu_seqlens_q[bi + 1] - q_off;
    }
    griddep_wait(); /* the forward grid's partials (below) are complete and visible */
    if (i >= seqlen_q) return;
    const int64_t grow = (p->q_varlen ? (int64_t)q_off : (int64_t)bi * p->s_q) + i;
    const int splits = prm.num_splits, d = p->d;

    /* weights: w_s = exp(lse_s - max), one split per lane (and lane + 32) */
    float lse_s[COMBINE_LSE_PER_LANE], mx = -INFINITY;
#pragma unroll
    for (int r = 0; r < COMBINE_LSE_PER_LANE; ++r) {
        const int s = lane + 32 * r;
        lse_s[r] = s < splits ? prm.ws_lse[((int64_t)s * p->h_q + h) * p->total_q + grow] : -INFINITY;
        mx = fmaxf(mx, lse_s[r]);
    }
    mx = warp_max(mx);
    float w_s[COMBINE_LSE_PER_LANE], sum = 0.f;
#pragma unroll
    for (int r = 0; r < COMBINE_LSE_PER_LANE; ++r) {
        w_s[r] = mx == -INFINITY ? 0.f : expf(lse_s[r] - mx);
        sum += w_s[r];
    }
    sum = warp_sum(sum);

    /* O = sum_s w_s O_s / sum; a split of weight 0 (no keys) is not read */
    float2 acc[COMBINE_MAX_PASSES];
#pragma unroll
    for (int c = 0; c < COMBINE_MAX_PASSES; ++c) acc[c] = make_float2(0.f, 0.f);
    const int passes = d / COMBINE_PAIR_COLS; /* 1, 2 or 4 (head dims 64 / 128 / 256) */
    const float *row0 = prm.ws_o + (grow * p->h_q + h) * d + 2 * lane;
    const int64_t split_step = (int64_t)p->total_q * p->h_q * d;
    COMBINE_PRAGMA(unroll COMBINE_SPLIT_UNROLL)
    for (int s = 0; s < splits; ++s) {
        const float w = __shfl_sync(FLASHC_FULL_WARP_MASK, w_s[s >> 5], s & 31);
        const float *src = row0 + s * split_step;
#pragma unroll
        for (int c = 0; c < COMBINE_MAX_PASSES; ++c) {
            if (c < passes && w != 0.f) {
                const float2 v = *(const float2 *)(src + c * COMBINE_PAIR_COLS);
                acc[c].x += w * v.x;
                acc[c].y += w * v.y;
            }
        }
    }
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    uint16_t *dst = (uint16_t *)p->o + (int64_t)bi * p->o_stride[0] + (int64_t)(q_off + i) * p->o_stride[1] +
                    (int64_t)h * p->o_stride[2] + 2 * lane;
#pragma unroll
    for (int c = 0; c < COMBINE_MAX_PASSES; ++c)
        if (c < passes) /* validated: o and its row strides are 16-byte aligned, so pairs are 4 */
            *(uint32_t *)(dst + c * COMBINE_PAIR_COLS) = pack_pair(acc[c].x * inv, acc[c].y * inv, p->out_dtype);
    if (p->lse && lane == 0)
        p->lse[(int64_t)bi * p->lse_stride[0] + (int64_t)h * p->lse_stride[1] + q_off + i] =
            sum > 0.f ? mx + logf(sum) : -INFINITY;
}

/* Launched as a programmatic dependent of the forward grid where the device has it (sm_90+): its
   CTAs are placed as the forward's finish and wait in griddep_wait, instead of the whole launch
   starting after the forward's last CTA. */
extern "C" cudaError_t flashc_sm80_combine(const sm80_fwd_params *prm, int pdl, cudaStream_t stream)
{
    const flashc_problem *p = &prm->p;
    cudaLaunchConfig_t cfg = {0};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)(((int64_t)p->s_q * p->h_q + COMBINE_WARPS - 1) / COMBINE_WARPS), 1, p->b);
    cfg.blockDim = dim3(COMBINE_THREADS, 1, 1);
    cfg.stream = stream;
    if (pdl) {
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, sm80_combine_kernel, *prm);
}

