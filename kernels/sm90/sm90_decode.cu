/*
 * Hopper fp8 decode tile: few query tokens over a long cache, e4m3 Q / K / V^T at d 128, on QGMMA.
 * Budget (sm90_decode.h): one CTA per (key split, KV head, batch), two per SM; 160 threads.
 *   rows      the s_q x group query rows that share the KV head, packed token-major (row r = token
 *             r / group, query head h_kv * group + r % group), at most SM90_DEC_M = 64: one wgmma M
 *   warps     0-3 the consumer warpgroup: S = Q K^T (m64n128k32 e4m3, both operands from smem), the
 *             online softmax in registers, O += P V^T (P from registers); 4 the producer, whose
 *             lane 0 issues the K and V^T TMA boxes of each 128-key block into a 3-stage ring
 *   smem      Q [64 x 128 B] + 3 x (K [128 keys x 128 B] + V^T [128 d x 128 keys]), 128B-swizzled
 *             (TMA writes K and V^T so, the consumers write Q so), + full / empty mbarriers per stage
 *   registers S 64 f32, O 64 f32, P 16 b32 per consumer thread; __launch_bounds__(160, 2): <= 168
 * Why one CTA's GEMMs are not overlapped with its softmax: the second CTA on the SM fills those
 * gaps, and the tile is bound by the K / V stream (prototype, docs/sm90.md "Next steps"). The solo
 * twin (sm90_dec_kernel_solo, one CTA per SM, SM90_DEC_SOLO_STAGES) has no second CTA: it issues
 * the next block's S with this block's P V^T, which needs S and O live at once (173 registers);
 * off by default (the H100 is stream-bound there, docs/sm90.md v29), the V-rows twin runs it.
 * Key splits write O / l and the log2 LSE of each row to the workspace; sm90_dec_combine merges them.
 * A KV cache: seqused_k bounds each sequence's keys (its CTAs past them stream nothing), and pages
 * holding whole 128-key blocks are read through the page table (one entry per block, by the
 * producer); the V^T bytes past a sequence are zeroed before P.V (sm90_vt_zero.cuh).
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "ptx/bar.h"
#include "ptx/cp_async_bulk.h"
#include "ptx/cvt.h"
#include "ptx/ex2.h"
#include "ptx/fence.h"
#include "ptx/ldmatrix.h"
#include "ptx/griddepcontrol.h"
#include "ptx/mbarrier.h"
#include "ptx/stmatrix.h"
#include "ptx/wgmma.h"
#include "common/softmax.cuh"
#include "sm90/sm90_decode.h"
#include "sm90/sm90_p8.cuh"
#include "sm90/sm90_vt8.h"
#include "sm90/sm90_vt8_transpose.cuh"
#include "sm90/sm90_vt_zero.cuh"

#define DEC_CONSUMER_THREADS 128
#define DEC_CONSUMER_WARPS (DEC_CONSUMER_THREADS / 32)
#define DEC_THREADS (DEC_CONSUMER_THREADS + 32) /* + the producer warp */
#define DEC_S_REGS (SM90_DEC_N / 2)              /* m64n128 f32 accumulator: 64 per thread */
#define DEC_O_REGS (SM90_DEC_D / 2)
#define DEC_P_REGS (SM90_DEC_N / 8)              /* e4m3 A fragments: 4 per 32-key k-step */
#define DEC_MMA_K_BYTES 32                       /* e4m3 wgmma K */
#define DEC_SWIZZLE_GROUP_BYTES 1024             /* 8 rows x 128 B */
#define DEC_LEADING_BYTES 16                     /* K-major operands: the descriptor's leading offset is unused */
#define DEC_CHUNK_BYTES 16                       /* the swizzle permutes 16-byte chunks: c ^ (row % 8) */
#define DEC_P_OFFSET_LOG2 8.f                    /* P = 2^8 exp2(s - max) <= 256 < 448, e4m3's largest */
#define DEC_BAR_Q 1                              /* named barrier: the consumers' Q is in smem */
#define DEC_BAR_VT 2                             /* named barrier: the last block's V^T past the keys is 0 */
#define DEC_BAR_TRANSPOSE 3                      /* named barrier: the transposers' zeroed V rows */
#define DEC_FULL 0                               /* mbarrier kinds per stage */
#define DEC_EMPTY 1
#define DEC_VT_FULL 2                            /* mbarrier kinds per V^T slot (V-rows kernel) */
#define DEC_VT_EMPTY 3
#define DEC_TRANSPOSE_WARPS 3                    /* the V-rows kernel's warps 5-7 */
#define DEC_TRANSPOSE_THREADS (32 * DEC_TRANSPOSE_WARPS)
#define DEC_VR_THREADS (DEC_THREADS + DEC_TRANSPOSE_THREADS)
#define DEC_COMBINE_THREADS 128

/* What tells the kernels apart: literals of each, folded where the functions below inline. */
typedef struct dec_cfg {
    int stages;  /* depth of the K / V ring */
    int overlap; /* 1: the GEMMs overlapped (dec_blocks_overlapped), 0: one block at a time */
    int v_rows;  /* 1: V in K's layout, transposed by the transposer warps into SM90_DEC_VT_SLOTS V^T slots */
} dec_cfg;

/* ---- Setup ------------------------------------------------------------------------------- */
/* Shared memory: Q, the ring's stages (K, then V^T or V rows), the V-rows kernel's V^T slots, the
   mbarriers (full / empty per stage, then vt_full / vt_empty per slot). */
static __device__ __forceinline__ uint32_t dec_vt_slot(uint32_t base, int slot, dec_cfg cfg)
{
    return base + SM90_DEC_BAR_OFFSET(cfg.stages) + slot * SM90_DEC_VT_BYTES;
}
static __device__ __forceinline__ uint32_t dec_bar(uint32_t base, int kind, int i, dec_cfg cfg)
{
    const uint32_t bars = dec_vt_slot(base, cfg.v_rows ? SM90_DEC_VT_SLOTS : 0, cfg);
    return bars + (kind < DEC_VT_FULL ? 2 * i + kind : 2 * cfg.stages + 2 * i + kind - DEC_VT_FULL) * 8;
}
static __device__ __forceinline__ uint32_t dec_k(uint32_t base, int stage)
{
    return base + SM90_DEC_Q_BYTES + stage * SM90_DEC_STAGE_BYTES;
}
/* the stage's V: V^T, or the V-rows kernel's V rows */
static __device__ __forceinline__ uint32_t dec_vt(uint32_t base, int stage) { return dec_k(base, stage) + SM90_DEC_K_BYTES; }

static __device__ __forceinline__ float dec_descale(const float *x, const int64_t stride[2], int bi, int hk)
{
    return x ? x[bi * stride[0] + hk * stride[1]] : 1.f;
}

/* ---- Producer ---------------------------------------------------------------------------- */
/* Where key block key0 of batch bi lies in the maps: (row, batch) of the cache, or of its page
   (pages hold whole blocks: the host takes page sizes that are multiples of SM90_DEC_N). */
static __device__ __forceinline__ void dec_block_coords(const sm90_dec_params *p, int key0, int bi, int *row, int *batch)
{
    if (p->page_table) {
        *batch = p->page_table[bi * p->page_table_stride + key0 / p->page_size];
        *row = key0 % p->page_size;
    } else {
        *batch = bi;
        *row = key0;
    }
}

/* Key blocks first, first + step, ... (count of them), low to high; TMA zero-fills keys past the
   cache (masked later), and the consumers zero V^T past a shorter sequence (dec_zero_past_keys;
   V rows: the transposers, dec_transposer). */
static __device__ __forceinline__ void dec_producer(const sm90_dec_params *p, uint32_t base, int first, int step,
                                                    int count, int hk, int bi, dec_cfg cfg)
{
    prefetch_tensormap(&p->tmap_k);
    prefetch_tensormap(&p->tmap_vt);
    const uint64_t policy = p->evict_first ? CP_ASYNC_BULK_EVICT_FIRST : CP_ASYNC_BULK_EVICT_NORMAL;
    for (int it = 0; it < count; ++it) {
        const int stage = it % cfg.stages;
        if (it >= cfg.stages) mbarrier_wait_parity(dec_bar(base, DEC_EMPTY, stage, cfg), (it / cfg.stages - 1) & 1);
        const uint32_t full = dec_bar(base, DEC_FULL, stage, cfg);
        mbarrier_arrive_expect_tx(full, SM90_DEC_STAGE_BYTES);
        int row, batch;
        dec_block_coords(p, (first + it * step) * SM90_DEC_N, bi, &row, &batch);
        /* streamed once; the L2 policy by the cache's size (SM90_DEC_EVICT_FIRST_MAX_L2X) */
        cp_async_bulk_tensor_4d_shared_global(dec_k(base, stage), &p->tmap_k, 0, row, hk, batch, full,
                                              policy);
        if (cfg.v_rows) /* V in K's layout: the same box as K's */
            cp_async_bulk_tensor_4d_shared_global(dec_vt(base, stage), &p->tmap_vt, 0, row, hk, batch, full,
                                                  policy);
        else
            cp_async_bulk_tensor_4d_shared_global(dec_vt(base, stage), &p->tmap_vt, row, 0, hk, batch, full,
                                                  policy);
    }
}

/* ---- Consumer ---------------------------------------------------------------------------- */
/* The tile's packed Q rows into smem in the 128B-swizzled layout wgmma reads; rows past p->rows 0. */
static __device__ void dec_load_q(const sm90_dec_params *p, uint8_t *sq, int hk, int bi, int tid)
{
    const int chunks = SM90_DEC_ROW_BYTES / DEC_CHUNK_BYTES;
    for (int i = tid; i < SM90_DEC_M * chunks; i += DEC_CONSUMER_THREADS) {
        const int r = i / chunks, c = i % chunks;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (r < p->rows) {
            const int t = r / p->group, h = hk * p->group + r % p->group;
            v = *(const uint4 *)(p->q + bi * p->q_stride[0] + t * p->q_stride[1] + h * p->q_stride[2] +
                                 c * DEC_CHUNK_BYTES);
        }
        /* the 128B swizzle: chunk c of row r at c ^ (r % 8), 8 being the chunks of a row */
        *(uint4 *)(sq + r * SM90_DEC_ROW_BYTES + (c ^ (r % chunks)) * DEC_CHUNK_BYTES) = v;
    }
    fence_proxy_async_shared_cta(); /* generic-proxy writes, read by wgmma (async proxy) */
    bar_sync(DEC_BAR_Q, DEC_CONSUMER_THREADS);
}

/* Accumulator layout (m64nN f32, PTX ISA §9.7.15.5.1.1): register 4j + 2r + c of lane l in warp w
   is row 16w + l/4 + 8r, column 8j + 2(l%4) + c. */
static __device__ __forceinline__ int dec_col(int i, int lane) { return 8 * (i / 4) + 2 * (lane % 4) + (i & 1); }
static __device__ __forceinline__ int dec_half(int i) { return (i >> 1) & 1; }

/* Scores to log2 units; keys past s_k, or (causal) past the row's token's last key, to -inf. */
static __device__ __forceinline__ void dec_scale_mask(float *s, float scale_log2, int key0, const int last_key[2],
                                                      int lane)
{
    const int need_mask = key0 + SM90_DEC_N - 1 > min(last_key[0], last_key[1]);
#pragma unroll
    for (int i = 0; i < DEC_S_REGS; ++i) {
        float x = s[i] * scale_log2;
        if (need_mask && key0 + dec_col(i, lane) > last_key[dec_half(i)]) x = -INFINITY;
        s[i] = x;
    }
}

/* Online softmax of one key block, the scores' part: P = 2^(s - m + offset) in s, m and l
   updated; alpha[r], the factor row half r's O must be rescaled by (dec_rescale_o), out. Apart
   so the solo kernel can run it while the previous block's P V^T still writes O. */
static __device__ __forceinline__ void dec_softmax_scores(float *s, float m[2], float l[2], float alpha[2])
{
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float mx = -INFINITY;
#pragma unroll
        for (int i = 0; i < DEC_S_REGS; ++i)
            if (dec_half(i) == r) mx = fmaxf(mx, s[i]);
        mx = quad_max(mx);
        const float m_new = fmaxf(m[r], mx);
        alpha[r] = m[r] == -INFINITY ? 0.f : ex2_approx_ftz_f32(m[r] - m_new);
        const float base = m_new == -INFINITY ? 0.f : m_new - DEC_P_OFFSET_LOG2;
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < DEC_S_REGS; ++i)
            if (dec_half(i) == r) {
                s[i] = ex2_approx_ftz_f32(s[i] - base);
                sum += s[i];
            }
        l[r] = l[r] * alpha[r] + sum;
        m[r] = m_new;
    }
}

static __device__ __forceinline__ void dec_rescale_o(float *o, const float alpha[2])
{
#pragma unroll
    for (int i = 0; i < DEC_O_REGS; ++i) o[i] *= alpha[dec_half(i)];
}

/* S = Q K^T of the key block in `stage` into s: issued and committed, not waited for. */
static __device__ __forceinline__ void dec_issue_qk(uint32_t base, int stage, float *s)
{
    const uint64_t dq = wgmma_desc_sw128(base, DEC_LEADING_BYTES, DEC_SWIZZLE_GROUP_BYTES);
    const uint64_t dk = wgmma_desc_sw128(dec_k(base, stage), DEC_LEADING_BYTES, DEC_SWIZZLE_GROUP_BYTES);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < SM90_DEC_ROW_BYTES / DEC_MMA_K_BYTES; ++kk)
        wgmma_m64n128k32_f32_e4m3_e4m3_ss(s, wgmma_desc_advance(dq, kk * DEC_MMA_K_BYTES),
                                          wgmma_desc_advance(dk, kk * DEC_MMA_K_BYTES), kk > 0);
    wgmma_commit_group();
}

/* O += P V^T, V^T at shared address vt (P from registers): issued and committed, not waited for. */
static __device__ __forceinline__ void dec_issue_pv(uint32_t vt, float *o, uint32_t *pf)
{
    const uint64_t dv = wgmma_desc_sw128(vt, DEC_LEADING_BYTES, DEC_SWIZZLE_GROUP_BYTES);
#pragma unroll
    for (int i = 0; i < DEC_O_REGS; ++i) wgmma_fence_operand_f32(&o[i]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < SM90_DEC_N / DEC_MMA_K_BYTES; ++kk)
        wgmma_m64n128k32_f32_e4m3_e4m3_rs(o, pf + 4 * kk, wgmma_desc_advance(dv, kk * DEC_MMA_K_BYTES), 1);
    wgmma_commit_group();
}

/* P to e4m3 A fragments: against the transposers' V^T each lane packs its own scores
   (sm90_vt8_transpose.cuh); against a pre-transposed V^T through the lane-quad exchange
   (sm90_p8.cuh). */
static __device__ __forceinline__ void dec_convert_p(uint32_t *pf, const float *s, int v_rows)
{
    if (v_rows)
        sm90_vt8_convert_p(pf, s, SM90_DEC_N);
    else
        sm90_p8_convert(pf, s, SM90_DEC_N);
}

/* The block's S (waited for) masked, softmaxed, O rescaled, P converted to e4m3 A fragments. */
static __device__ __forceinline__ void dec_softmax_to_p(float *s, float *o, float m[2], float l[2], uint32_t *pf,
                                                        float scale_log2, int key0, const int last_key[2], int lane,
                                                        int v_rows)
{
    float alpha[2];
    dec_scale_mask(s, scale_log2, key0, last_key, lane);
    dec_softmax_scores(s, m, l, alpha);
    dec_rescale_o(o, alpha);
    dec_convert_p(pf, s, v_rows);
}

/* One key block, nothing in flight across it (the pair kernel): S = Q K^T, mask and softmax,
   O += P V^T, both waited for. */
static __device__ __forceinline__ void dec_block(uint32_t base, int stage, float *o, float m[2], float l[2],
                                                 float scale_log2, int key0, const int last_key[2], int lane)
{
    float s[DEC_S_REGS];
    uint32_t pf[DEC_P_REGS];
    dec_issue_qk(base, stage, s);
    wgmma_wait_group(0);
#pragma unroll
    for (int i = 0; i < DEC_S_REGS; ++i) wgmma_fence_operand_f32(&s[i]);
    dec_softmax_to_p(s, o, m, l, pf, scale_log2, key0, last_key, lane, 0);
    dec_issue_pv(dec_vt(base, stage), o, pf);
    wgmma_wait_group(0);
#pragma unroll
    for (int i = 0; i < DEC_O_REGS; ++i) wgmma_fence_operand_f32(&o[i]);
}

/* ---- Epilogue ---------------------------------------------------------------------------- */
/* O / l per row straight from registers: to the workspace (a split) or as the output dtype with
   v_descale and the natural-log LSE. */
static __device__ void dec_epilogue(const sm90_dec_params *p, const float *o, const float m[2], const float l[2],
                                    int row0, int lane, int hk, int bi, int split, float v_descale)
{
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int row = row0 + 8 * r;
        const float lsum = quad_sum(l[r]);
        const float inv = lsum > 0.f ? 1.f / lsum : 0.f;
        const float lse_log2 = lsum > 0.f ? m[r] - DEC_P_OFFSET_LOG2 + log2f(lsum) : -INFINITY;
        if (row >= p->rows) continue;
        if (p->splits > 1) {
            const int64_t slot = (((int64_t)split * p->b + bi) * p->h_kv + hk) * SM90_DEC_M + row;
            float *dst = p->ws_o + slot * SM90_DEC_D;
#pragma unroll
            for (int i = 0; i < DEC_O_REGS; i += 2)
                if (dec_half(i) == r) *(float2 *)(dst + dec_col(i, lane)) = make_float2(o[i] * inv, o[i + 1] * inv);
            if (lane % 4 == 0) p->ws_lse[slot] = lse_log2;
            continue;
        }
        const int t = row / p->group, h = hk * p->group + row % p->group;
        uint16_t *dst = (uint16_t *)p->o + bi * p->o_stride[0] + t * p->o_stride[1] + h * p->o_stride[2];
        const float sc = inv * v_descale;
#pragma unroll
        for (int i = 0; i < DEC_O_REGS; i += 2)
            if (dec_half(i) == r)
                *(uint32_t *)(dst + dec_col(i, lane)) = p->out_bf16 ? cvt_rn_bf16x2_f32(o[i] * sc, o[i + 1] * sc)
                                                                    : cvt_rn_f16x2_f32(o[i] * sc, o[i + 1] * sc);
        if (p->lse && lane % 4 == 0) p->lse[bi * p->lse_stride[0] + h * p->lse_stride[1] + t] = lse_log2 * FLASHC_LN2;
    }
}

/* ---- Consumer loops (after the epilogue they end in) --------------------------------------- */

/* A block reaching past the sequence's s_k_b keys (seqused_k, pages: the cache holds other bytes
   there) gets its V^T columns past them zeroed, each consumer thread one d-row, then fenced to the
   async proxy and met at a barrier before the P.V wgmma reads them. (V rows: the transposers zero
   the rows before transposing them, dec_transposer.) */
static __device__ __forceinline__ void dec_zero_past_keys(const sm90_dec_params *p, uint32_t base, int stage, int key0,
                                                          int s_k_b, int tid, dec_cfg cfg)
{
    if (cfg.v_rows || !p->seqused_k || key0 + SM90_DEC_N <= s_k_b) return;
    sm90_zero_vt_keys(dec_vt(base, stage), s_k_b - key0, SM90_DEC_N, SM90_DEC_D, tid, DEC_CONSUMER_THREADS);
    fence_proxy_async_shared_cta();
    bar_sync(DEC_BAR_VT, DEC_CONSUMER_THREADS);
}

/* The V^T that block `it` (in ring stage `stage`) multiplies: the stage's own, or (V rows) the
   transposers' slot it % SM90_DEC_VT_SLOTS, waited for. */
static __device__ __forceinline__ uint32_t dec_pv_operand(uint32_t base, int it, int stage, dec_cfg cfg)
{
    if (!cfg.v_rows) return dec_vt(base, stage);
    const int slot = it % SM90_DEC_VT_SLOTS;
    mbarrier_wait_parity(dec_bar(base, DEC_VT_FULL, slot, cfg), (it / SM90_DEC_VT_SLOTS) & 1);
    return dec_vt_slot(base, slot, cfg);
}

/* Block `it`'s P V^T done: its stage (and V^T slot) back, one arrival per consumer warp. */
static __device__ __forceinline__ void dec_release(uint32_t base, int it, int stage, int lane, dec_cfg cfg)
{
    if (lane != 0) return;
    mbarrier_arrive(dec_bar(base, DEC_EMPTY, stage, cfg));
    if (cfg.v_rows) mbarrier_arrive(dec_bar(base, DEC_VT_EMPTY, it % SM90_DEC_VT_SLOTS, cfg));
}

/* The pair kernel's loop: one block at a time, nothing in flight across blocks (the SM's other CTA
   fills the gaps). */
static __device__ __forceinline__ void dec_blocks_serial(const sm90_dec_params *p, uint32_t base, int first, int step,
                                                         int count, int s_k_b, float *o, float m[2], float l[2],
                                                         float scale_log2, const int last_key[2], dec_cfg cfg)
{
    const int tid = threadIdx.x, lane = tid % 32;
    for (int it = 0; it < count; ++it) {
        const int stage = it % cfg.stages, key0 = (first + it * step) * SM90_DEC_N;
        mbarrier_wait_parity(dec_bar(base, DEC_FULL, stage, cfg), (it / cfg.stages) & 1);
        dec_zero_past_keys(p, base, stage, key0, s_k_b, tid, cfg);
        dec_block(base, stage, o, m, l, scale_log2, key0, last_key, lane);
        dec_release(base, it, stage, lane, cfg);
    }
}

/* The solo kernels' loop, after FA3's intra-warpgroup overlap: block it's S = Q K^T and block
   it - 1's O += P V^T issued together, S waited for alone (wait_group 1: groups complete in
   order), block it's scores softmaxed while the P V^T still runs, then that waited for, O
   rescaled and P converted (P's registers are the P V^T's operand until then). Every wgmma is
   waited for within its block: none is in flight across a branch or the loop's back edge (ptxas
   would wait there, C7517). */
static __device__ __forceinline__ void dec_blocks_overlapped(const sm90_dec_params *p, uint32_t base, int first,
                                                             int step, int count, int s_k_b, float *o, float m[2],
                                                             float l[2], float scale_log2, const int last_key[2],
                                                             dec_cfg cfg)
{
    const int tid = threadIdx.x, lane = tid % 32;
    if (count <= 0) return;
    float s[DEC_S_REGS], alpha[2];
    uint32_t pf[DEC_P_REGS];
    /* block 0 alone: nothing to overlap with yet */
    mbarrier_wait_parity(dec_bar(base, DEC_FULL, 0, cfg), 0);
    dec_zero_past_keys(p, base, 0, first * SM90_DEC_N, s_k_b, tid, cfg);
#pragma unroll
    for (int i = 0; i < DEC_S_REGS; ++i) s[i] = 0.f; /* the wgmma's "+f" operands defined (else C7515) */
    dec_issue_qk(base, 0, s);
    wgmma_wait_group(0);
#pragma unroll
    for (int i = 0; i < DEC_S_REGS; ++i) wgmma_fence_operand_f32(&s[i]);
    dec_softmax_to_p(s, o, m, l, pf, scale_log2, first * SM90_DEC_N, last_key, lane, cfg.v_rows);
    for (int it = 1; it < count; ++it) {
        const int stage = it % cfg.stages, prev = (it - 1) % cfg.stages, key0 = (first + it * step) * SM90_DEC_N;
        mbarrier_wait_parity(dec_bar(base, DEC_FULL, stage, cfg), (it / cfg.stages) & 1);
        dec_zero_past_keys(p, base, stage, key0, s_k_b, tid, cfg);
        dec_issue_qk(base, stage, s);
        dec_issue_pv(dec_pv_operand(base, it - 1, prev, cfg), o, pf);
        wgmma_wait_group(1); /* S */
#pragma unroll
        for (int i = 0; i < DEC_S_REGS; ++i) wgmma_fence_operand_f32(&s[i]);
        dec_scale_mask(s, scale_log2, key0, last_key, lane);
        dec_softmax_scores(s, m, l, alpha);
        wgmma_wait_group(0); /* P V^T: O final for block it - 1, P's registers free, its V^T read */
#pragma unroll
        for (int i = 0; i < DEC_O_REGS; ++i) wgmma_fence_operand_f32(&o[i]);
#pragma unroll
        for (int i = 0; i < DEC_P_REGS; ++i) wgmma_fence_operand_b32(&pf[i]);
        dec_release(base, it - 1, prev, lane, cfg);
        dec_rescale_o(o, alpha);
        dec_convert_p(pf, s, cfg.v_rows);
    }
    dec_issue_pv(dec_pv_operand(base, count - 1, (count - 1) % cfg.stages, cfg), o, pf);
    wgmma_wait_group(0);
#pragma unroll
    for (int i = 0; i < DEC_O_REGS; ++i) wgmma_fence_operand_f32(&o[i]);
}

static __device__ __forceinline__ void dec_consumer(const sm90_dec_params *p, uint8_t *smem, uint32_t base,
                                                    int first, int step, int count, int hk, int bi, int split,
                                                    int s_k_b, dec_cfg cfg)
{
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    dec_load_q(p, smem, hk, bi, tid);
    const float scale_log2 = p->scale_log2 * dec_descale(p->q_descale, p->descale_stride[0], bi, hk) *
                             dec_descale(p->k_descale, p->descale_stride[1], bi, hk);
    const int row0 = 16 * warp + lane / 4;
    int last_key[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) { /* causal, bottom-right: token t sees keys up to t + s_k - s_q */
        const int t = min(row0 + 8 * r, p->rows - 1) / p->group;
        last_key[r] = p->causal ? min(s_k_b - 1, t + s_k_b - p->s_q) : s_k_b - 1;
    }
    float o[DEC_O_REGS], m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
#pragma unroll
    for (int i = 0; i < DEC_O_REGS; ++i) o[i] = 0.f;
    if (cfg.overlap)
        dec_blocks_overlapped(p, base, first, step, count, s_k_b, o, m, l, scale_log2, last_key, cfg);
    else
        dec_blocks_serial(p, base, first, step, count, s_k_b, o, m, l, scale_log2, last_key, cfg);
    dec_epilogue(p, o, m, l, row0, lane, hk, bi, split, dec_descale(p->v_descale, p->descale_stride[2], bi, hk));
}

/* ---- Transposers (the V-rows kernel) ------------------------------------------------------- */
/* Warps 5-7, in the producer's block order: wait for the stage, zero the V rows of keys past the
   sequence (whole 128-byte rows: the swizzle only moves chunks inside a row), wait for the V^T
   slot to be free, transpose (units of 32 keys x 16 columns, sm90_vt8.h: ldmatrix.trans, byte
   permutes, stmatrix; the fwd_kernel.cuh V pass's mapping), fence the stores to the async proxy,
   arrive on the slot's vt_full (each thread) and the stage's empty (each warp: V rows read). */
static __device__ __forceinline__ void dec_transposer(const sm90_dec_params *p, uint32_t base, int first, int step,
                                                      int count, int s_k_b, dec_cfg cfg)
{
    const int tid = threadIdx.x - DEC_THREADS, warp = tid / 32, lane = tid % 32;
    for (int it = 0; it < count; ++it) {
        const int stage = it % cfg.stages, slot = it % SM90_DEC_VT_SLOTS, key0 = (first + it * step) * SM90_DEC_N;
        const uint32_t v = dec_vt(base, stage), vt = dec_vt_slot(base, slot, cfg);
        mbarrier_wait_parity(dec_bar(base, DEC_FULL, stage, cfg), (it / cfg.stages) & 1);
        if (p->seqused_k && key0 + SM90_DEC_N > s_k_b) {
            sm90_zero_v_rows(v, s_k_b - key0, SM90_DEC_N, SM90_DEC_ROW_BYTES, 1, SM90_DEC_K_BYTES, tid,
                             DEC_TRANSPOSE_THREADS);
            bar_sync(DEC_BAR_TRANSPOSE, DEC_TRANSPOSE_THREADS);
        }
        if (it >= SM90_DEC_VT_SLOTS)
            mbarrier_wait_parity(dec_bar(base, DEC_VT_EMPTY, slot, cfg), (it / SM90_DEC_VT_SLOTS - 1) & 1);
        sm90_vt8_transpose(v, vt, SM90_DEC_N, SM90_DEC_D, SM90_DEC_ROW_BYTES, SM90_DEC_K_BYTES, SM90_DEC_VT_BYTES, warp,
                           DEC_TRANSPOSE_WARPS, lane);
        fence_proxy_async_shared_cta(); /* ld / stmatrix (generic proxy) -> wgmma reads (async proxy) */
        mbarrier_arrive(dec_bar(base, DEC_VT_FULL, slot, cfg));
        __syncwarp();
        if (lane == 0) mbarrier_arrive(dec_bar(base, DEC_EMPTY, stage, cfg)); /* this warp read its V rows */
    }
}

/* The kernels' common body; `cfg` is a literal of each kernel. */
static __device__ __forceinline__ void dec_kernel_body(const sm90_dec_params *p, dec_cfg cfg)
{
    extern __shared__ __align__(SM90_DEC_ALIGN) uint8_t smem_raw[];
    const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
    const uint32_t base = (raw + SM90_DEC_ALIGN - 1) & ~(uint32_t)(SM90_DEC_ALIGN - 1);
    uint8_t *smem = smem_raw + (base - raw);
    /* the combine grid (programmatic dependent) may be placed as this grid's CTAs finish; it waits
       on-device for all of them before reading */
    griddep_launch_dependents();
    const int split = blockIdx.x, hk = blockIdx.y, bi = blockIdx.z;
    /* this sequence's keys (seqused_k) and blocks; a split past them streams none and leaves its
       rows key-less (LSE -inf) for the combine */
    const int s_k_b = p->seqused_k ? min(p->seqused_k[bi], p->s_k) : p->s_k;
    const int blocks = (s_k_b + SM90_DEC_N - 1) / SM90_DEC_N;
    int first, step, count;
    if (p->interleave) { /* a KV head's splits read neighbouring blocks at once, so the 128-byte
                            pieces of one V^T d-row come from DRAM together (docs/sm90.md) */
        first = split, step = p->splits;
        count = split < blocks ? (blocks - 1 - split) / p->splits + 1 : 0;
    } else {
        first = split * p->blocks_per_split, step = 1;
        count = max(min(first + p->blocks_per_split, blocks) - first, 0);
    }
    if (threadIdx.x == 0) {
        /* a stage comes back from each consumer warp, and (V rows) each transposer warp */
        const int readers = DEC_CONSUMER_WARPS + (cfg.v_rows ? DEC_TRANSPOSE_WARPS : 0);
        for (int s = 0; s < cfg.stages; ++s) {
            mbarrier_init(dec_bar(base, DEC_FULL, s, cfg), 1);
            mbarrier_init(dec_bar(base, DEC_EMPTY, s, cfg), readers);
        }
        if (cfg.v_rows)
            for (int s = 0; s < SM90_DEC_VT_SLOTS; ++s) {
                mbarrier_init(dec_bar(base, DEC_VT_FULL, s, cfg), DEC_TRANSPOSE_THREADS);
                mbarrier_init(dec_bar(base, DEC_VT_EMPTY, s, cfg), DEC_CONSUMER_WARPS);
            }
        fence_mbarrier_init_release_cluster();
    }
    __syncthreads();
    if (cfg.v_rows && threadIdx.x >= DEC_THREADS) { /* only the V-rows kernel has these warps */
        dec_transposer(p, base, first, step, count, s_k_b, cfg);
        return;
    }
    if (threadIdx.x / 32 == DEC_CONSUMER_WARPS) {
        if (threadIdx.x % 32 == 0) dec_producer(p, base, first, step, count, hk, bi, cfg);
        return;
    }
    dec_consumer(p, smem, base, first, step, count, hk, bi, split, s_k_b, cfg);
}

/* Two CTAs per SM (<= 168 registers), one block at a time. */
__global__ void __launch_bounds__(DEC_THREADS, SM90_DEC_CTAS_PER_SM) sm90_dec_kernel(const __grid_constant__ sm90_dec_params p)
{
    const dec_cfg cfg = {SM90_DEC_STAGES, 0, 0};
    dec_kernel_body(&p, cfg);
}

/* One CTA per SM: the GEMMs overlapped, a deeper ring. */
__global__ void __launch_bounds__(DEC_THREADS, 1) sm90_dec_kernel_solo(const __grid_constant__ sm90_dec_params p)
{
    const dec_cfg cfg = {SM90_DEC_SOLO_STAGES, 1, 0};
    dec_kernel_body(&p, cfg);
}

/* V in K's layout: the solo kernel with three transposer warps and SM90_DEC_VT_SLOTS V^T slots. */
__global__ void __launch_bounds__(DEC_VR_THREADS, 1) sm90_dec_kernel_solo_vr(const __grid_constant__ sm90_dec_params p)
{
    const dec_cfg cfg = {SM90_DEC_VR_STAGES, 1, 1};
    dec_kernel_body(&p, cfg);
}

/* ---- Combine ------------------------------------------------------------------------------ */
/* Merge the splits: one warp per packed row, 4 columns per lane; the output dtype, v_descale and
   the natural-log LSE as the unsplit epilogue writes them. */
__global__ void __launch_bounds__(DEC_COMBINE_THREADS) sm90_dec_combine(const __grid_constant__ sm90_dec_params p)
{
    const int64_t wid = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (wid >= (int64_t)p.b * p.h_kv * p.rows) return;
    griddep_wait(); /* every split's pieces written and visible */
    const int row = (int)(wid % p.rows), hk = (int)(wid / p.rows % p.h_kv), bi = (int)(wid / ((int64_t)p.rows * p.h_kv));
    float mx = -INFINITY;
    for (int s = 0; s < p.splits; ++s)
        mx = fmaxf(mx, p.ws_lse[(((int64_t)s * p.b + bi) * p.h_kv + hk) * SM90_DEC_M + row]);
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    float wsum = 0.f;
    for (int s = 0; s < p.splits; ++s) {
        const int64_t slot = (((int64_t)s * p.b + bi) * p.h_kv + hk) * SM90_DEC_M + row;
        const float lse = p.ws_lse[slot];
        if (lse == -INFINITY) continue; /* a split without keys for this row wrote no O */
        const float w = exp2f(lse - mx);
        const float4 v = *(const float4 *)(p.ws_o + slot * SM90_DEC_D + 4 * lane);
        wsum += w;
        acc.x += w * v.x, acc.y += w * v.y, acc.z += w * v.z, acc.w += w * v.w;
    }
    const float sc = wsum > 0.f ? dec_descale(p.v_descale, p.descale_stride[2], bi, hk) / wsum : 0.f;
    const int t = row / p.group, h = hk * p.group + row % p.group;
    uint16_t *dst = (uint16_t *)p.o + bi * p.o_stride[0] + t * p.o_stride[1] + h * p.o_stride[2] + 4 * lane;
    const uint32_t lo = p.out_bf16 ? cvt_rn_bf16x2_f32(acc.x * sc, acc.y * sc) : cvt_rn_f16x2_f32(acc.x * sc, acc.y * sc);
    const uint32_t hi = p.out_bf16 ? cvt_rn_bf16x2_f32(acc.z * sc, acc.w * sc) : cvt_rn_f16x2_f32(acc.z * sc, acc.w * sc);
    *(uint32_t *)dst = lo; /* 4-byte stores: only element pairs are known to be aligned */
    *(uint32_t *)(dst + 2) = hi;
    if (p.lse && lane == 0)
        p.lse[bi * p.lse_stride[0] + h * p.lse_stride[1] + t] = wsum > 0.f ? (mx + log2f(wsum)) * FLASHC_LN2 : -INFINITY;
}

extern "C" cudaError_t flashc_sm90_decode_launch(const sm90_dec_params *params, cudaStream_t stream)
{
    /* the opt-in is per device: set on every call, as the forward launchers do */
    void (*kernel)(sm90_dec_params) = params->v_rows ? sm90_dec_kernel_solo_vr
                                      : params->solo  ? sm90_dec_kernel_solo
                                                      : sm90_dec_kernel;
    const int smem = params->v_rows ? SM90_DEC_VR_SMEM_BYTES
                     : params->solo ? SM90_DEC_SOLO_SMEM_BYTES
                                    : SM90_DEC_SMEM_BYTES;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)params->splits, (unsigned)params->h_kv, (unsigned)params->b);
    kernel<<<grid, params->v_rows ? DEC_VR_THREADS : DEC_THREADS, smem, stream>>>(*params);
    if ((e = cudaGetLastError()) != cudaSuccess || params->splits <= 1) return e;
    /* the combine as the decode grid's programmatic dependent (as the portable path's, which
       measured +2 % on the H200 at b 8 h 64/8 4k): no launch gap between the two */
    const int64_t warps = (int64_t)params->b * params->h_kv * params->rows, per_block = DEC_COMBINE_THREADS / 32;
    cudaLaunchConfig_t cfg = {0};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)((warps + per_block - 1) / per_block), 1, 1);
    cfg.blockDim = dim3(DEC_COMBINE_THREADS, 1, 1);
    cfg.stream = stream;
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, sm90_dec_combine, *params);
}
