/*
 * sm80 forward kernel body (FlashAttention-2 style, mma.sync m16n8k16, f32 accumulate).
 * Included by one tiny .cu per variant, which defines:
 *   FWD_BF16      0: f16 inputs, 1: bf16 inputs
 *   FWD_HEAD_DIM  64, 128 or 256
 *   FWD_NAME      the extern "C" launcher's name (see sm80_fwd.h)
 * Every runtime feature (causal/window, softcap, bias, ALiBi, GQA packing, varlen, paged KV,
 * seqused_k, LSE, split-KV) is a CTA-uniform branch, so one variant serves all of them.
 *
 * Budget
 *   CTA      4 warps, 128 threads; BLOCK_M = 64 query rows (one m16 slab per warp)
 *   tiles    BLOCK_N = 64 keys (d <= 128) or 32 (d = 256); STAGES = 2 K/V buffers (cp.async)
 *   smem     Q 64xd + STAGES x (K + V) BLOCK_Nxd, 16-bit: d64 40 KB, d128 80 KB, d256 96 KB
 *            (all fit the 99 KB opt-in limit of sm_86/89 as well as sm_80/90)
 *   registers O d/2 f32, S BLOCK_N/2 f32, Q fragments d/4 (d <= 128; d = 256 re-reads Q from smem)
 *   layout   rows of d 16-bit elements; 16-byte chunk c of row r stored at chunk c ^ (r & 7), so the
 *            8 row addresses of every ldmatrix phase hit 8 distinct bank groups
 *
 * Grid: x = m-block of (packed) query rows, y = query head (or KV head when GQA-packed),
 *       z = batch x num_splits. Keys are visited from the last block down, so the blocks that
 *       need masking (causal diagonal, tail) come first.
 */
#include <stdint.h>
#include <math.h>
#include "sm80/sm80_fwd.h"
#include "ptx/mma.h"
#include "ptx/ldmatrix.h"
#include "ptx/cp_async.h"
#include "ptx/cvt.h"
#include "ptx/ex2.h"
#include "common/softmax.cuh"
#include "common/dtype.cuh"

/* ---- Budget constants ----------------------------------------------------------------------- */
#define D FWD_HEAD_DIM
#define BLOCK_M SM80_BLOCK_M
#define NUM_THREADS SM80_NUM_THREADS
#if FWD_HEAD_DIM <= 128
#define BLOCK_N 64
#define Q_IN_REGS 1
#else
#define BLOCK_N 32
#define Q_IN_REGS 0
#endif
#define STAGES 2
#define MIN_CTAS_PER_SM 1                         /* lets ptxas use up to 255 registers: no spills */
#define ELEM_BYTES 2                              /* f16 / bf16 */
#define CHUNK_ELEMS (CP_ASYNC_CHUNK_BYTES / ELEM_BYTES)
#define ROW_CHUNKS (D / CHUNK_ELEMS)
#define SWIZZLE_ROWS_MASK 7                       /* 8 rows x 16 B chunks form one swizzle atom */
#define TILE_Q_ELEMS (BLOCK_M * D)
#define TILE_KV_ELEMS (BLOCK_N * D)
#define SMEM_BYTES ((TILE_Q_ELEMS + 2 * STAGES * TILE_KV_ELEMS) * ELEM_BYTES)
#define S_FRAGS (BLOCK_N / 8)                     /* n8 accumulators of S per warp */
#define O_FRAGS (D / 8)                           /* n8 accumulators of O per warp */
#define K_STEPS_QK (D / 16)
#define K_STEPS_PV (BLOCK_N / 16)
#define WARP_ROWS 16
#define Q_CHUNKS_PER_THREAD (BLOCK_M * ROW_CHUNKS / NUM_THREADS)
#define KV_CHUNKS_PER_THREAD (BLOCK_N * ROW_CHUNKS / NUM_THREADS)

#if FWD_BF16
#define MMA_16816 mma_m16n8k16_row_col_f32_bf16_bf16_f32
#define PACK_INPUT cvt_rn_bf16x2_f32
#else
#define MMA_16816 mma_m16n8k16_row_col_f32_f16_f16_f32
#define PACK_INPUT cvt_rn_f16x2_f32
#endif

#define FWD_CAT2(a, b) a##b
#define FWD_CAT(a, b) FWD_CAT2(a, b)
#define FWD_KERNEL FWD_CAT(FWD_NAME, _kernel)

/* Per-CTA coordinates, resolved once. */
typedef struct fwd_ctx {
    int bi, split;
    int head_y;            /* blockIdx.y: query head, or KV head when packed */
    int hk;                /* KV head */
    int group;             /* query rows per query index (group if packed, else 1) */
    int seqlen_q, seqlen_k, q_off, k_off, diag;
    int m0, m_rows;        /* first packed row of the tile; packed rows of the sequence */
} fwd_ctx;

/* What a thread needs about its two accumulator rows (g and g+8 of its warp's slab). */
typedef struct fwd_rows {
    int i[2];              /* query index inside the sequence */
    int h[2];              /* query head */
    int valid[2];          /* row exists */
    int64_t bias_off[2];   /* bias offset of (row, key 0) */
    float slope[2];        /* ALiBi slope */
} fwd_rows;

/* Element offset of 16-byte chunk `chunk` of row `row` in a swizzled tile. */
static __device__ __forceinline__ int swz(int row, int chunk)
{
    /* Written so the compiler sees that only the low 3 chunk bits depend on the row: unrolled
       fragment loops then share a few lane bases plus immediate offsets. */
    return row * D + (chunk & ~SWIZZLE_ROWS_MASK) * CHUNK_ELEMS +
           (((chunk & SWIZZLE_ROWS_MASK) ^ (row & SWIZZLE_ROWS_MASK)) * CHUNK_ELEMS);
}

static __device__ __forceinline__ int row_head(const sm80_fwd_params *prm, const fwd_ctx *c, int r)
{
    return prm->pack_gqa ? c->hk * c->group + r % c->group : c->head_y;
}

/* ---- Setup ---------------------------------------------------------------------------------- */
static __device__ __forceinline__ void setup_ctx(const sm80_fwd_params *prm, fwd_ctx *c)
{
    const flashc_problem *p = &prm->p;
    c->bi = blockIdx.z / prm->num_splits;
    c->split = blockIdx.z % prm->num_splits;
    c->head_y = blockIdx.y;
    c->hk = prm->pack_gqa ? (int)blockIdx.y : (int)blockIdx.y / prm->group;
    c->group = prm->pack_gqa ? prm->group : 1;
    if (p->q_varlen) {
        c->q_off = p->cu_seqlens_q[c->bi];
        c->seqlen_q = p->cu_seqlens_q[c->bi + 1] - c->q_off;
    } else {
        c->q_off = 0;
        c->seqlen_q = p->s_q;
    }
    c->k_off = 0;
    c->seqlen_k = p->s_k;
    if (p->kv_layout == FLASHC_KV_VARLEN) {
        c->k_off = p->cu_seqlens_k[c->bi];
        c->seqlen_k = p->cu_seqlens_k[c->bi + 1] - c->k_off;
    }
    if (p->seqused_k) c->seqlen_k = p->seqused_k[c->bi];
    c->diag = c->seqlen_k - c->seqlen_q;
    c->m0 = blockIdx.x * BLOCK_M;
    c->m_rows = c->seqlen_q * c->group;
}

/* Key blocks [*lo, *hi) this CTA visits: the window's reach of its rows, then its split share. */
static __device__ __forceinline__ void key_block_range(const sm80_fwd_params *prm, const fwd_ctx *c, int *lo,
                                                       int *hi)
{
    const flashc_problem *p = &prm->p;
    int i_lo = c->m0 / c->group;
    int i_hi = (min(c->m0 + BLOCK_M, c->m_rows) - 1) / c->group;
    int k_end = c->seqlen_k;
    if (p->window_right >= 0) k_end = min(k_end, i_hi + c->diag + p->window_right + 1);
    int k_begin = 0;
    if (p->window_left >= 0) k_begin = max(0, i_lo + c->diag - p->window_left);
    int b_lo = k_begin / BLOCK_N;
    int b_hi = k_end > k_begin ? (k_end + BLOCK_N - 1) / BLOCK_N : b_lo;
    int per_split = (b_hi - b_lo + prm->num_splits - 1) / prm->num_splits;
    *lo = min(b_hi, b_lo + c->split * per_split);
    *hi = min(b_hi, *lo + per_split);
}

/* Whether key block n has any masked element for this tile's rows (else the mask is skipped). */
static __device__ __forceinline__ int block_needs_mask(const sm80_fwd_params *prm, const fwd_ctx *c, int n)
{
    const flashc_problem *p = &prm->p;
    int i_lo = c->m0 / c->group;
    int i_hi = (min(c->m0 + BLOCK_M, c->m_rows) - 1) / c->group;
    int k0 = n * BLOCK_N, k1 = k0 + BLOCK_N - 1;
    if (k1 >= c->seqlen_k) return 1;
    if (p->window_right >= 0 && k1 > i_lo + c->diag + p->window_right) return 1;
    if (p->window_left >= 0 && k0 < i_hi + c->diag - p->window_left) return 1;
    return 0;
}

static __device__ __forceinline__ void setup_rows(const sm80_fwd_params *prm, const fwd_ctx *c, int warp, int lane,
                                                  fwd_rows *rw)
{
    const flashc_problem *p = &prm->p;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        int r = c->m0 + warp * WARP_ROWS + (lane >> 2) + 8 * k;
        rw->valid[k] = r < c->m_rows;
        rw->i[k] = r / c->group;
        rw->h[k] = row_head(prm, c, r);
        rw->bias_off[k] = (int64_t)c->bi * p->bias_stride[0] + (int64_t)rw->h[k] * p->bias_stride[1] +
                          (int64_t)rw->i[k] * p->bias_stride[2];
        rw->slope[k] = p->alibi ? p->alibi[(int64_t)c->bi * p->alibi_stride[0] +
                                           (int64_t)rw->h[k] * p->alibi_stride[1]]
                                : 0.f;
    }
}

/* ---- Producer: cp.async tile loads (zero-filled past the sequence) -------------------------- */
static __device__ __forceinline__ void load_q_tile(const sm80_fwd_params *prm, const fwd_ctx *c, uint16_t *sQ,
                                                   int tid)
{
    const flashc_problem *p = &prm->p;
    const uint16_t *q = (const uint16_t *)p->q;
#pragma unroll
    for (int it = 0; it < Q_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        int r = c->m0 + row;
        const uint16_t *src = q;
        uint32_t bytes = 0;
        if (r < c->m_rows) {
            int i = r / c->group;
            src = q + (int64_t)c->bi * p->q_stride[0] + (int64_t)(c->q_off + i) * p->q_stride[1] +
                  (int64_t)row_head(prm, c, r) * p->q_stride[2] + ch * CHUNK_ELEMS;
            bytes = CP_ASYNC_CHUNK_BYTES;
        }
        cp_async_cg_shared_global_16(cvta_to_shared_u32(sQ + swz(row, ch)), src, bytes);
    }
}

/* K and V rows of key block n. Paged KV: every row finds its page through the page table. */
static __device__ __forceinline__ void load_kv_tile(const sm80_fwd_params *prm, const fwd_ctx *c, uint16_t *sK,
                                                    uint16_t *sV, int n, int tid)
{
    const flashc_problem *p = &prm->p;
    const uint16_t *k = (const uint16_t *)p->k;
    const uint16_t *v = (const uint16_t *)p->v;
    const int paged = p->kv_layout == FLASHC_KV_PAGED;
#pragma unroll
    for (int it = 0; it < KV_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        int j = n * BLOCK_N + row;
        const uint16_t *ks = k, *vs = v;
        uint32_t bytes = 0;
        if (j < c->seqlen_k) {
            int64_t ko, vo;
            if (paged) {
                int64_t page = p->page_table[(int64_t)c->bi * p->page_table_stride + j / p->page_size];
                int in_page = j % p->page_size;
                ko = page * p->k_stride[0] + (int64_t)in_page * p->k_stride[1];
                vo = page * p->v_stride[0] + (int64_t)in_page * p->v_stride[1];
            } else {
                ko = (int64_t)c->bi * p->k_stride[0] + (int64_t)(c->k_off + j) * p->k_stride[1];
                vo = (int64_t)c->bi * p->v_stride[0] + (int64_t)(c->k_off + j) * p->v_stride[1];
            }
            ks = k + ko + (int64_t)c->hk * p->k_stride[2] + ch * CHUNK_ELEMS;
            vs = v + vo + (int64_t)c->hk * p->v_stride[2] + ch * CHUNK_ELEMS;
            bytes = CP_ASYNC_CHUNK_BYTES;
        }
        cp_async_cg_shared_global_16(cvta_to_shared_u32(sK + swz(row, ch)), ks, bytes);
        cp_async_cg_shared_global_16(cvta_to_shared_u32(sV + swz(row, ch)), vs, bytes);
    }
}

/* ---- Consumer: S = Q K^T ------------------------------------------------------------------- */
/* A fragment (16 rows x 16 k) of Q at k-step kk for this warp, via one ldmatrix.x4. */
static __device__ __forceinline__ void load_q_frag(uint32_t a[4], uint32_t sQ_addr, int warp, int lane, int kk)
{
    int row = warp * WARP_ROWS + (lane & 7) + ((lane >> 3) & 1) * 8;
    int ch = kk * 2 + (lane >> 4);
    ldmatrix_sync_aligned_m8n8_x4_shared_b16(a, sQ_addr + swz(row, ch) * ELEM_BYTES);
}

static __device__ __forceinline__ void compute_qk(float S[S_FRAGS][4],
#if Q_IN_REGS
                                                  const uint32_t qf[K_STEPS_QK][4],
#endif
                                                  uint32_t sQ_addr, uint32_t sK_addr, int warp, int lane)
{
#pragma unroll
    for (int f = 0; f < S_FRAGS; ++f) S[f][0] = S[f][1] = S[f][2] = S[f][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < K_STEPS_QK; ++kk) {
#if Q_IN_REGS
        const uint32_t *a = qf[kk];
#else
        uint32_t a[4];
        load_q_frag(a, sQ_addr, warp, lane, kk);
#endif
#pragma unroll
        for (int nn = 0; nn < S_FRAGS / 2; ++nn) {
            /* matrices: (keys 0-7, k 0-7), (keys 0-7, k 8-15), (keys 8-15, k 0-7), (keys 8-15, k 8-15) */
            uint32_t b[4];
            int row = nn * 16 + (lane & 7) + (lane >> 4) * 8;
            int ch = kk * 2 + ((lane >> 3) & 1);
            ldmatrix_sync_aligned_m8n8_x4_shared_b16(b, sK_addr + swz(row, ch) * ELEM_BYTES);
            MMA_16816(S[2 * nn], a, b[0], b[1]);
            MMA_16816(S[2 * nn + 1], a, b[2], b[3]);
        }
    }
}

/* Scores -> log2 units with softcap / bias / ALiBi (when present), and the mask (when needed). */
static __device__ __forceinline__ void score_transform(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                       const fwd_rows *rw, float S[S_FRAGS][4], int n,
                                                       int lane, int need_mask)
{
    const flashc_problem *p = &prm->p;
    const int transform = prm->transform;
#pragma unroll
    for (int f = 0; f < S_FRAGS; ++f) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            int k = e >> 1;
            int j = n * BLOCK_N + f * 8 + 2 * (lane & 3) + (e & 1);
            float x = S[f][e];
            if (transform) {
                x *= p->softmax_scale;
                if (p->softcap != 0.f) x = apply_softcap(x, p->softcap, prm->inv_softcap);
                if (p->bias && rw->valid[k] && j < c->seqlen_k)
                    x += load_as_f32(p->bias, rw->bias_off[k] + (int64_t)j * p->bias_stride[3], p->bias_dtype);
                if (p->alibi) x += alibi_term(rw->slope[k], rw->i[k], j, c->diag);
                x *= FLASHC_LOG2E;
            }
            if (need_mask && !key_visible(rw->i[k], j, c->seqlen_k, c->diag, p->window_left, p->window_right))
                x = -INFINITY;
            S[f][e] = x;
        }
    }
}

/* Online softmax over one key block: running max m, running (thread-partial) sum l, O rescale.
   `mult` turns S into log2 units (scale * log2 e, or 1 when score_transform already did). */
static __device__ __forceinline__ void online_softmax(float S[S_FRAGS][4], float O[O_FRAGS][4], float m[2],
                                                      float l[2], float mult)
{
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        float mx = m[k];
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f) mx = fmaxf(mx, fmaxf(S[f][2 * k], S[f][2 * k + 1]));
        mx = quad_max(mx);
        /* A row with every key masked so far keeps max -inf: subtract 0 so exp2 gives 0, not NaN. */
        float ms = mx == -INFINITY ? 0.f : mx * mult;
        float corr = ex2_approx_ftz_f32(m[k] * mult - ms);
        m[k] = mx;
        float sum = 0.f;
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f) {
            float p0 = ex2_approx_ftz_f32(fmaf(S[f][2 * k], mult, -ms));
            float p1 = ex2_approx_ftz_f32(fmaf(S[f][2 * k + 1], mult, -ms));
            S[f][2 * k] = p0;
            S[f][2 * k + 1] = p1;
            sum += p0 + p1;
        }
        l[k] = l[k] * corr + sum;
#pragma unroll
        for (int o = 0; o < O_FRAGS; ++o) {
            O[o][2 * k] *= corr;
            O[o][2 * k + 1] *= corr;
        }
    }
}

/* ---- Consumer: O += P V (P re-used from the S accumulators as A fragments) ------------------ */
static __device__ __forceinline__ void compute_pv(const float S[S_FRAGS][4], float O[O_FRAGS][4], uint32_t sV_addr,
                                                  int lane)
{
#pragma unroll
    for (int kk = 0; kk < K_STEPS_PV; ++kk) {
        uint32_t a[4];
        a[0] = PACK_INPUT(S[2 * kk][0], S[2 * kk][1]);
        a[1] = PACK_INPUT(S[2 * kk][2], S[2 * kk][3]);
        a[2] = PACK_INPUT(S[2 * kk + 1][0], S[2 * kk + 1][1]);
        a[3] = PACK_INPUT(S[2 * kk + 1][2], S[2 * kk + 1][3]);
#pragma unroll
        for (int dd = 0; dd < O_FRAGS / 2; ++dd) {
            /* transposed matrices: (keys 0-7, d 0-7), (keys 8-15, d 0-7), (keys 0-7, d 8-15), (keys 8-15, d 8-15) */
            uint32_t b[4];
            int row = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
            int ch = dd * 2 + (lane >> 4);
            ldmatrix_sync_aligned_m8n8_x4_trans_shared_b16(b, sV_addr + swz(row, ch) * ELEM_BYTES);
            MMA_16816(O[2 * dd], a, b[0], b[1]);
            MMA_16816(O[2 * dd + 1], a, b[2], b[3]);
        }
    }
}

/* ---- Epilogue ------------------------------------------------------------------------------- */
static __device__ __forceinline__ uint32_t pack_output(float lo, float hi, flashc_dtype dt)
{
    return dt == FLASHC_DTYPE_BF16 ? cvt_rn_bf16x2_f32(lo, hi) : cvt_rn_f16x2_f32(lo, hi);
}

/* Normalise O, then either store it (out dtype, staged through smem for 16-byte rows) and LSE,
   or store the f32 partial and its LSE for the combine kernel. */
static __device__ __forceinline__ void epilogue(const sm80_fwd_params *prm, const fwd_ctx *c, const fwd_rows *rw,
                                                float O[O_FRAGS][4], const float m[2], const float l[2],
                                                float mult, uint16_t *sO, int warp, int lane, int tid)
{
    const flashc_problem *p = &prm->p;
    float inv[2], lse[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        float sum = quad_sum(l[k]);
        inv[k] = sum > 0.f ? 1.f / sum : 0.f;
        lse[k] = sum > 0.f ? (m[k] * mult + log2f(sum)) * FLASHC_LN2 : -INFINITY;
    }
    const int t = lane & 3, g = lane >> 2;

    if (prm->num_splits > 1) {
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            if (!rw->valid[k]) continue;
            int64_t grow = (p->q_varlen ? (int64_t)c->q_off : (int64_t)c->bi * p->s_q) + rw->i[k];
            float *dst = prm->ws_o + (((int64_t)c->split * p->total_q + grow) * p->h_q + rw->h[k]) * D;
#pragma unroll
            for (int o = 0; o < O_FRAGS; ++o) {
                float2 v = make_float2(O[o][2 * k] * inv[k], O[o][2 * k + 1] * inv[k]);
                *(float2 *)(dst + o * 8 + 2 * t) = v;
            }
            if (t == 0) prm->ws_lse[((int64_t)c->split * p->h_q + rw->h[k]) * p->total_q + grow] = lse[k];
        }
        return;
    }

    /* Stage the tile in smem (the Q region: each warp overwrites only the rows it alone read). */
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        int row = warp * WARP_ROWS + g + 8 * k;
#pragma unroll
        for (int o = 0; o < O_FRAGS; ++o) {
            int col = o * 8 + 2 * t;
            uint32_t v = pack_output(O[o][2 * k] * inv[k], O[o][2 * k + 1] * inv[k], p->out_dtype);
            *(uint32_t *)(sO + swz(row, col / CHUNK_ELEMS) + col % CHUNK_ELEMS) = v;
        }
        if (p->lse && t == 0 && rw->valid[k])
            p->lse[(int64_t)c->bi * p->lse_stride[0] + (int64_t)rw->h[k] * p->lse_stride[1] + c->q_off + rw->i[k]] =
                lse[k];
    }
    __syncthreads();
    uint16_t *out = (uint16_t *)p->o;
#pragma unroll
    for (int it = 0; it < Q_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        int r = c->m0 + row;
        if (r >= c->m_rows) continue;
        int i = r / c->group;
        uint16_t *dst = out + (int64_t)c->bi * p->o_stride[0] + (int64_t)(c->q_off + i) * p->o_stride[1] +
                        (int64_t)row_head(prm, c, r) * p->o_stride[2] + ch * CHUNK_ELEMS;
        *(uint4 *)dst = *(const uint4 *)(sO + swz(row, ch));
    }
}

/* ---- Kernel --------------------------------------------------------------------------------- */
__global__ void __launch_bounds__(NUM_THREADS, MIN_CTAS_PER_SM) FWD_KERNEL(const __grid_constant__ sm80_fwd_params prm)
{
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t *sQ = smem;
    uint16_t *sK = sQ + TILE_Q_ELEMS;                  /* STAGES K tiles */
    uint16_t *sV = sK + STAGES * TILE_KV_ELEMS;        /* STAGES V tiles */
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;

    fwd_ctx c;
    setup_ctx(&prm, &c);
    if (c.m0 >= c.m_rows) return;
    int b_lo, b_hi;
    key_block_range(&prm, &c, &b_lo, &b_hi);
    fwd_rows rw;
    setup_rows(&prm, &c, warp, lane, &rw);

    float O[O_FRAGS][4];
#pragma unroll
    for (int o = 0; o < O_FRAGS; ++o) O[o][0] = O[o][1] = O[o][2] = O[o][3] = 0.f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    const float mult = prm.transform ? 1.f : prm.scale_log2;
    const uint32_t sQ_addr = cvta_to_shared_u32(sQ);
    const int count = b_hi - b_lo;

    if (count > 0) {
#if Q_IN_REGS
        uint32_t qf[K_STEPS_QK][4];
#endif
        /* Prologue: Q and the first STAGES-1 key blocks (highest first), one group each. */
        load_q_tile(&prm, &c, sQ, tid);
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < count)
                load_kv_tile(&prm, &c, sK + s * TILE_KV_ELEMS, sV + s * TILE_KV_ELEMS, b_hi - 1 - s, tid);
            cp_async_commit_group();
        }
        for (int it = 0; it < count; ++it) {
            const int n = b_hi - 1 - it, stage = it % STAGES;
            CP_ASYNC_WAIT_GROUP(STAGES - 2);
            /* Block `it` landed for every thread, and every warp is done with block it-1's buffers. */
            __syncthreads();
            {
                int nxt = it + STAGES - 1;
                if (nxt < count) {
                    int ns = nxt % STAGES;
                    load_kv_tile(&prm, &c, sK + ns * TILE_KV_ELEMS, sV + ns * TILE_KV_ELEMS, b_hi - 1 - nxt, tid);
                }
                cp_async_commit_group(); /* possibly empty: keeps the group count uniform */
            }
#if Q_IN_REGS
            if (it == 0) {
#pragma unroll
                for (int kk = 0; kk < K_STEPS_QK; ++kk) load_q_frag(qf[kk], sQ_addr, warp, lane, kk);
            }
#endif
            float S[S_FRAGS][4];
            compute_qk(S,
#if Q_IN_REGS
                       qf,
#endif
                       sQ_addr, cvta_to_shared_u32(sK + stage * TILE_KV_ELEMS), warp, lane);
            int need_mask = block_needs_mask(&prm, &c, n);
            if (prm.transform || need_mask) score_transform(&prm, &c, &rw, S, n, lane, need_mask);
            online_softmax(S, O, m, l, mult);
            compute_pv(S, O, cvta_to_shared_u32(sV + stage * TILE_KV_ELEMS), lane);
        }
    }
    /* No copy may still target smem, and every warp is past its last ldmatrix of Q/K/V. */
    CP_ASYNC_WAIT_GROUP(0);
    __syncthreads();
    epilogue(&prm, &c, &rw, O, m, l, mult, sQ, warp, lane, tid);
}

/* ---- Launcher ------------------------------------------------------------------------------- */
extern "C" cudaError_t FWD_NAME(const sm80_fwd_params *prm, int grid_m, int grid_h, int grid_z,
                                cudaStream_t stream)
{
    cudaError_t e = cudaFuncSetAttribute(FWD_KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    if (e != cudaSuccess) return e;
    FWD_KERNEL<<<dim3(grid_m, grid_h, grid_z), NUM_THREADS, SMEM_BYTES, stream>>>(*prm);
    return cudaGetLastError();
}

extern "C" int FWD_CAT(FWD_NAME, _smem_bytes)(void) { return SMEM_BYTES; }
extern "C" int FWD_CAT(FWD_NAME, _block_n)(void) { return BLOCK_N; }
