/*
 * Tail-split combine for the Hopper forward (sm90_fwd_params, tail_* fields): the forward's last
 * round cuts its tiles into pieces of consecutive key blocks spread over every block; each piece
 * left O_i / rowsum_i (f32) and lse_i per row in the workspace. Here, per row of a tail tile:
 *   lse = log sum_i exp(lse_i),   O = sum_i exp(lse_i - lse) O_i
 * written as the output dtype, and LSE if asked. One warp per row (4 columns per lane and step),
 * so each warp has only a few dependent memory round trips (a version with 4 rows per warp in
 * turn was latency-bound). Runs right after the forward on the same stream.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "ptx/cvt.h"
#include "sm90/sm90_fwd.cuh"

#define CMB_WARPS 4 /* rows per block: one warp per row, so the few loads of a row run in parallel */

/* The block whose range holds tail position w (ranges: tail_len + 1 positions for the first
   tail_rem blocks, tail_len after). */
static __device__ __forceinline__ int32_t cmb_owner(const sm90_fwd_params *p, int32_t w)
{
    const int32_t big = p->tail_rem * (p->tail_len + 1);
    return w < big ? w / (p->tail_len + 1) : p->tail_rem + (w - big) / p->tail_len;
}

/* Workspace row of block i's piece in tail tile tl: its first (0) or second (1) piece. */
static __device__ __forceinline__ int64_t cmb_row(const sm90_fwd_params *p, int32_t i, int32_t tl, int32_t block_m,
                                                  int32_t r)
{
    const int32_t start = i * p->tail_len + min(i, p->tail_rem);
    const int32_t slot = SM90_TAIL_SLOTS_PER_BLOCK * i + (start / p->tail_nb == tl ? 0 : 1);
    return (int64_t)slot * block_m + r;
}

__global__ void __launch_bounds__(CMB_WARPS * 32) sm90_tail_combine_kernel(const __grid_constant__ sm90_fwd_params p,
                                                                           int32_t block_m, int32_t d)
{
    const int32_t tl = blockIdx.x; /* tail tile */
    const int32_t t = p.tail_start + tl, nb = p.tail_nb;
    const int32_t m_block = t % p.num_m_blocks, bh = t / p.num_m_blocks;
    const int32_t head = bh % p.h_q, batch = bh / p.h_q;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int32_t r = blockIdx.y * CMB_WARPS + warp, row = m_block * block_m + r;
    if (r >= block_m || row >= p.s_q) return;
    const int32_t first = cmb_owner(&p, tl * nb), last = cmb_owner(&p, (tl + 1) * nb - 1);
    /* lse = log sum exp lse_i, lanes taking the pieces 32 at a time (usually 2-3 in all) */
    float mx = -INFINITY;
    for (int32_t i = first + lane; i <= last; i += 32) mx = fmaxf(mx, p.ws_lse[cmb_row(&p, i, tl, block_m, r)]);
#pragma unroll
    for (int k = 16; k > 0; k /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, k));
    float sum = 0.0f;
    if (mx != -INFINITY)
        for (int32_t i = first + lane; i <= last; i += 32) sum += expf(p.ws_lse[cmb_row(&p, i, tl, block_m, r)] - mx);
#pragma unroll
    for (int k = 16; k > 0; k /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, k);
    const float lse = sum > 0.0f ? mx + logf(sum) : -INFINITY;
    uint16_t *dst = (uint16_t *)p.o + (int64_t)batch * p.o_stride[0] + (int64_t)row * p.o_stride[1] +
                    (int64_t)head * p.o_stride[2];
    for (int32_t c = 4 * lane; c < d; c += 128) {
        float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 4
        for (int32_t i = first; i <= last; ++i) {
            const int64_t wr = cmb_row(&p, i, tl, block_m, r);
            const float wgt = sum > 0.0f ? expf(p.ws_lse[wr] - lse) : 0.0f;
            const float4 x = *(const float4 *)(p.ws_o + wr * d + c);
            acc.x += wgt * x.x;
            acc.y += wgt * x.y;
            acc.z += wgt * x.z;
            acc.w += wgt * x.w;
        }
        /* 4-byte stores: only element pairs are known to be aligned here */
        *(uint32_t *)(dst + c) = p.out_bf16 ? cvt_rn_bf16x2_f32(acc.x, acc.y) : cvt_rn_f16x2_f32(acc.x, acc.y);
        *(uint32_t *)(dst + c + 2) = p.out_bf16 ? cvt_rn_bf16x2_f32(acc.z, acc.w) : cvt_rn_f16x2_f32(acc.z, acc.w);
    }
    if (p.lse && lane == 0) p.lse[(int64_t)batch * p.lse_stride[0] + (int64_t)head * p.lse_stride[1] + row] = lse;
}

extern "C" cudaError_t flashc_sm90_tail_combine(const sm90_fwd_params *params, int block_m, int d, cudaStream_t stream)
{
    const int tiles = params->tail_tiles;
    const dim3 cgrid((unsigned)tiles, (unsigned)((block_m + CMB_WARPS - 1) / CMB_WARPS));
    sm90_tail_combine_kernel<<<cgrid, CMB_WARPS * 32, 0, stream>>>(*params, block_m, d);
    return cudaGetLastError();
}
