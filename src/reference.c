/*
 * CPU reference backend: the fp64 oracle every GPU path is tested against.
 *
 * For each sequence bi, KV head hk, query head hq of hk's group and query row i:
 *
 *   s_j  = softmax_scale · q_descale · k_descale · Σ_d Q[i,d]·K[j,d]     (exact for int8)
 *   s_j  = softcap · tanh(s_j / softcap)                                  (if softcap > 0)
 *   s_j += bias[bi, hq, i, j] − slope[bi, hq] · |i + sk − sq − j|         (if given)
 *   keys: lo <= j <= hi with lo = i + sk − sq − window_left, hi = i + sk − sq + window_right
 *         (−1 = unbounded; causal is window_right = 0), sq/sk the sequence's actual lengths
 *   O[i] = v_descale · Σ_j exp(s_j − m) V[j] / Σ_j exp(s_j − m),   LSE = m + log Σ_j exp(s_j − m)
 *
 * Everything after decoding is double; outputs are rounded once (to nearest, ties to even) to
 * the output dtype. A row with no key (empty range, empty sequence, or every score −inf) writes
 * zeros and LSE = −inf.
 *
 * Cost: K and V of one (sequence, KV head) are decoded once into double arrays (K in panels, V
 * row-major) and reused by the whole query-head group and every row. Rows go in blocks: Q·K and
 * P·V run as small register tiles over cache-sized chunks of keys, covering only the union of
 * the block's key ranges. Each sum runs in one fixed order, so results are reproducible and do
 * not depend on the vector width. b=2, h=16, s=2048, d=128 (bf16) takes about 11 s of one core of
 * a shared EPYC VM non-causal, 5.5 s causal.
 *
 * Order: metadata checks and allocation first (a failure writes nothing), then the rows.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "problem.h"

/* Register tiles (see score_tile / pv_tile): query rows per tile, keys per score tile, output
   columns per P·V tile. 4 x 4 doubles of accumulators fit the SSE2 register file with room for
   the operands; each loaded K/V element then feeds REF_ROWS multiply-adds. */
#define REF_ROWS 4
#define REF_KEYS 4
#define REF_PV_COLS 4
/* Cache blocking: REF_GROUPS tiles of rows (a block of REF_GROUPS * REF_ROWS rows) sweep K and V
   in chunks of REF_CHUNK keys, so each chunk is read from cache by every row of the block instead
   of streaming the whole head from memory once per tile. 64 keys x d=256 x 8 B = 128 KiB. */
#define REF_GROUPS 8
#define REF_BLOCK_ROWS (REF_GROUPS * REF_ROWS)
#define REF_CHUNK 64

/* ---- Sequence geometry ------------------------------------------------------------------- */

int32_t flashc_seqlen_q(const flashc_problem *p, int32_t bi)
{
    if (p->q_varlen) return p->cu_seqlens_q[bi + 1] - p->cu_seqlens_q[bi];
    return p->s_q;
}

int32_t flashc_seqlen_k(const flashc_problem *p, int32_t bi)
{
    if (p->seqused_k) return p->seqused_k[bi];
    if (p->kv_layout == FLASHC_KV_VARLEN) return p->cu_seqlens_k[bi + 1] - p->cu_seqlens_k[bi];
    return p->s_k; /* batched; paged always has seqused_k */
}

/* First global row of sequence bi (varlen) or 0 (batched: rows are found via stride[0]). */
static int64_t q_row0(const flashc_problem *p, int32_t bi) { return p->q_varlen ? p->cu_seqlens_q[bi] : 0; }

/* Where key j of sequence bi lives: `block` is multiplied by stride[0] (batch or page), `pos` is
   the row inside it (global token for varlen, row in the page for paged). */
typedef struct key_place {
    int64_t block, pos;
} key_place;

static key_place locate_key(const flashc_problem *p, int32_t bi, int32_t j)
{
    key_place kp;
    switch (p->kv_layout) {
    case FLASHC_KV_VARLEN:
        kp.block = 0;
        kp.pos = (int64_t)p->cu_seqlens_k[bi] + j;
        break;
    case FLASHC_KV_PAGED:
        kp.block = p->page_table[(int64_t)bi * p->page_table_stride + j / p->page_size];
        kp.pos = j % p->page_size;
        break;
    default:
        kp.block = bi;
        kp.pos = j;
        break;
    }
    return kp;
}

/* ---- Metadata checks (before anything is written) ----------------------------------------- */

/* flashc_validate checks these when the index arrays are host memory, which the CPU backend
   requires; they are repeated here because an out-of-range index would read outside a buffer.
   Also returns the longest key sequence, to size the decode buffers. */
static flashc_status check_metadata(const flashc_problem *p, int32_t *max_sk)
{
    *max_sk = 0;
    for (int32_t bi = 0; bi < p->b; ++bi) {
        if (p->q_varlen) {
            const int32_t *cu = p->cu_seqlens_q;
            if (cu[bi] < 0 || cu[bi + 1] < cu[bi] || cu[bi + 1] > p->total_q)
                return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT,
                                    "cpu backend: cu_seqlens_q[%d..%d] = %d..%d is outside [0, total_q = %d]",
                                    (int)bi, (int)bi + 1, (int)cu[bi], (int)cu[bi + 1], (int)p->total_q);
        }
        const int32_t sq = flashc_seqlen_q(p, bi), sk = flashc_seqlen_k(p, bi);
        if (sk < 0)
            return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT, "cpu backend: sequence %d has key length %d < 0",
                                (int)bi, (int)sk);
        int64_t capacity;
        switch (p->kv_layout) {
        case FLASHC_KV_VARLEN: {
            const int32_t *cu = p->cu_seqlens_k;
            if (cu[bi] < 0 || cu[bi + 1] < cu[bi] || cu[bi + 1] > p->total_k)
                return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT,
                                    "cpu backend: cu_seqlens_k[%d..%d] = %d..%d is outside [0, total_k = %d]",
                                    (int)bi, (int)bi + 1, (int)cu[bi], (int)cu[bi + 1], (int)p->total_k);
            capacity = (int64_t)p->total_k - cu[bi];
            break;
        }
        case FLASHC_KV_PAGED: {
            capacity = (int64_t)p->max_pages_per_seq * p->page_size;
            const int32_t *row = p->page_table + (int64_t)bi * p->page_table_stride;
            for (int64_t pg = 0; pg * p->page_size < sk && pg < p->max_pages_per_seq; ++pg)
                if (row[pg] < 0 || row[pg] >= p->num_pages)
                    return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT,
                                        "cpu backend: page_table[%d][%lld] = %d is outside [0, num_pages = %d)",
                                        (int)bi, (long long)pg, (int)row[pg], (int)p->num_pages);
            break;
        }
        default: capacity = p->s_k; break;
        }
        if (sk > capacity)
            return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT,
                                "cpu backend: sequence %d uses %d keys but its storage holds %lld", (int)bi, (int)sk,
                                (long long)capacity);
        /* The bias is indexed by local row/column within [s_q, s_k]. */
        if (p->bias && (sq > p->s_q || sk > p->s_k))
            return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT,
                                "cpu backend: sequence %d (%d queries, %d keys) exceeds the bias extent [%d, %d]",
                                (int)bi, (int)sq, (int)sk, (int)p->s_q, (int)p->s_k);
        if (sk > *max_sk) *max_sk = sk;
    }
    return FLASHC_STATUS_SUCCESS;
}

static int supported_dtypes(const flashc_problem *p)
{
    const flashc_dtype in = p->in_dtype, out = p->out_dtype, bt = p->bias_dtype;
    int in_ok = in == FLASHC_DTYPE_F16 || in == FLASHC_DTYPE_BF16 || in == FLASHC_DTYPE_FP8_E4M3 ||
                in == FLASHC_DTYPE_INT8;
    int out_ok = out == FLASHC_DTYPE_F32 || out == FLASHC_DTYPE_F16 || out == FLASHC_DTYPE_BF16;
    int bias_ok = !p->bias || bt == FLASHC_DTYPE_F32 || bt == FLASHC_DTYPE_F16 || bt == FLASHC_DTYPE_BF16;
    return in_ok && out_ok && bias_ok;
}

/* ---- Decoding ---------------------------------------------------------------------------- */

/* n elements starting at element `off`, `stride` elements apart, decoded exactly into out. */
static void decode_strided(flashc_dtype dt, const void *base, int64_t off, int64_t stride, int32_t n, double *out)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: {
        const float *x = (const float *)base + off;
        for (int32_t i = 0; i < n; ++i) out[i] = (double)x[i * stride];
        break;
    }
    case FLASHC_DTYPE_F16: {
        const uint16_t *x = (const uint16_t *)base + off;
        for (int32_t i = 0; i < n; ++i) out[i] = flashc_f16_to_double(x[i * stride]);
        break;
    }
    case FLASHC_DTYPE_BF16: {
        const uint16_t *x = (const uint16_t *)base + off;
        for (int32_t i = 0; i < n; ++i) out[i] = flashc_bf16_to_double(x[i * stride]);
        break;
    }
    case FLASHC_DTYPE_FP8_E4M3: {
        const uint8_t *x = (const uint8_t *)base + off;
        for (int32_t i = 0; i < n; ++i) out[i] = flashc_e4m3_to_double(x[i * stride]);
        break;
    }
    case FLASHC_DTYPE_INT8: {
        const int8_t *x = (const int8_t *)base + off;
        for (int32_t i = 0; i < n; ++i) out[i] = flashc_int8_to_double(x[i * stride]);
        break;
    }
    }
}

/* Keys j < sk of (bi, hk): K into panels of REF_KEYS keys, KP[j / REF_KEYS][k][j % REF_KEYS], so a
   score tile streams one contiguous panel; V row-major into V[j][k] (row length dp). row is a
   [d] scratch. */
static void decode_kv_head(const flashc_problem *p, int32_t bi, int32_t hk, int32_t sk, double *KP, double *V,
                           int32_t dp, double *row)
{
    const int32_t d = p->d;
    for (int32_t j = 0; j < sk; ++j) {
        key_place kp = locate_key(p, bi, j);
        int64_t k_off = kp.block * p->k_stride[0] + kp.pos * p->k_stride[1] + hk * p->k_stride[2];
        decode_strided(p->in_dtype, p->k, k_off, 1, d, row);
        double *panel = KP + (int64_t)(j / REF_KEYS) * d * REF_KEYS + j % REF_KEYS;
        for (int32_t k = 0; k < d; ++k) panel[k * REF_KEYS] = row[k];
        if (!p->v_transposed) {
            int64_t v_off = kp.block * p->v_stride[0] + kp.pos * p->v_stride[1] + hk * p->v_stride[2];
            decode_strided(p->in_dtype, p->v, v_off, 1, d, V + (int64_t)j * dp);
        } else { /* [block, head, dim, pos]: one key's d values are v_stride[2] apart */
            int64_t v_off = kp.block * p->v_stride[0] + hk * p->v_stride[1] + kp.pos;
            decode_strided(p->in_dtype, p->v, v_off, p->v_stride[2], d, V + (int64_t)j * dp);
        }
    }
}

static double descale(const float *ds, const int64_t stride[2], int32_t bi, int32_t hk)
{
    return ds ? (double)ds[bi * stride[0] + hk * stride[1]] : 1.0;
}

/* ---- Tiles ------------------------------------------------------------------------------ */

/* S[r][c] = Σ_k Q[k][r] · panel[k][c]: a REF_ROWS x REF_KEYS tile from interleaved query rows and
   one K panel. The accumulators are independent, so the compiler keeps them in vector registers
   and every sum still runs in k order (no reassociation: results do not depend on vector width). */
static void score_tile(const double *Q, const double *panel, int32_t d, double S[REF_ROWS][REF_KEYS])
{
    double acc[REF_ROWS][REF_KEYS] = {{0}};
    for (int32_t k = 0; k < d; ++k) {
        const double *kt = panel + (int64_t)k * REF_KEYS;
        const double *q = Q + (int64_t)k * REF_ROWS;
        for (int r = 0; r < REF_ROWS; ++r)
            for (int c = 0; c < REF_KEYS; ++c) acc[r][c] += q[r] * kt[c];
    }
    memcpy(S, acc, sizeof acc);
}

/* O[r][dd0 + c] = Σ_t P[t][r] · V[t][dd0 + c] over keys t0..t1 (inclusive), REF_PV_COLS columns. */
static void pv_tile(const double *P, const double *V, int64_t ldv, int64_t t0, int64_t t1, int32_t dd0,
                    double O[REF_ROWS][REF_PV_COLS])
{
    double acc[REF_ROWS][REF_PV_COLS] = {{0}};
    for (int64_t t = t0; t <= t1; ++t) {
        const double *v = V + t * ldv + dd0;
        const double *pt = P + (t - t0) * REF_ROWS;
        for (int r = 0; r < REF_ROWS; ++r)
            for (int c = 0; c < REF_PV_COLS; ++c) acc[r][c] += pt[r] * v[c];
    }
    memcpy(O, acc, sizeof acc);
}

/* ---- Rows -------------------------------------------------------------------------------- */

/* Inclusive key range [*lo, *hi] that row i may attend (empty when *lo > *hi). */
static void key_range(const flashc_problem *p, int32_t i, int32_t sq, int32_t sk, int64_t *lo, int64_t *hi)
{
    const int64_t diag = (int64_t)i + sk - sq; /* the key aligned with row i (bottom-right) */
    const int32_t wr = p->causal ? 0 : p->window_right;
    *lo = p->window_left < 0 ? 0 : diag - p->window_left;
    *hi = wr < 0 ? (int64_t)sk - 1 : diag + wr;
    if (*lo < 0) *lo = 0;
    if (*hi > (int64_t)sk - 1) *hi = (int64_t)sk - 1;
}

/* Per (sequence, KV head) state and scratch shared by the row blocks. */
typedef struct head_ctx {
    const flashc_problem *p;
    int32_t bi, hq, sq, sk;
    int32_t dp;        /* d rounded up to REF_PV_COLS: row length of V and of the outputs */
    double qk_scale;   /* softmax_scale · q_descale · k_descale */
    double v_scale;    /* v_descale */
    double slope;      /* ALiBi slope of hq (0 when absent) */
    const double *KP;  /* [ldk / REF_KEYS][d][REF_KEYS] key panels */
    int64_t ldk;       /* keys rounded up to whole tiles, plus one spare tile */
    const double *V;   /* [sk][dp] */
    double *Q;         /* [REF_GROUPS][d][REF_ROWS] decoded query rows, interleaved per tile */
    double *S;         /* [REF_BLOCK_ROWS][ldk] scores, then logits, by row */
    double *P;         /* [REF_GROUPS][ldk][REF_ROWS] probabilities, interleaved per tile */
    double *O;         /* [REF_BLOCK_ROWS][dp] unnormalised outputs */
    double *tmp;       /* [max(ldk, d)] a decoded bias or query row */
} head_ctx;

/* Scores of keys lo..hi of row i (already holding Q·K) become the final logits; returns their
   maximum (−inf if there is none). */
static double finish_scores(const head_ctx *c, int32_t i, int64_t lo, int64_t hi, double *s)
{
    const flashc_problem *p = c->p;
    const int32_t n = (int32_t)(hi - lo + 1);
    const double cap = p->softcap;
    for (int32_t t = 0; t < n; ++t) {
        double x = s[t] * c->qk_scale;
        if (cap > 0) x = cap * tanh(x / cap);
        s[t] = x;
    }
    if (p->bias) {
        int64_t off = c->bi * p->bias_stride[0] + c->hq * p->bias_stride[1] + (int64_t)i * p->bias_stride[2] +
                      lo * p->bias_stride[3];
        decode_strided(p->bias_dtype, p->bias, off, p->bias_stride[3], n, c->tmp);
        for (int32_t t = 0; t < n; ++t) s[t] += c->tmp[t];
    }
    if (p->alibi) {
        const int64_t diag = (int64_t)i + c->sk - c->sq;
        for (int32_t t = 0; t < n; ++t) s[t] -= c->slope * fabs((double)(diag - (lo + t)));
    }
    double m = -INFINITY;
    for (int32_t t = 0; t < n; ++t)
        if (s[t] > m) m = s[t];
    return m;
}

static void store_row(const flashc_problem *p, int64_t off, const double *x, double scale)
{
    const int32_t d = p->d;
    switch (p->out_dtype) {
    case FLASHC_DTYPE_F32: {
        float *o = (float *)p->o + off;
        for (int32_t k = 0; k < d; ++k) o[k] = (float)(x ? x[k] * scale : 0.0);
        break;
    }
    case FLASHC_DTYPE_F16: {
        uint16_t *o = (uint16_t *)p->o + off;
        for (int32_t k = 0; k < d; ++k) o[k] = flashc_double_to_f16(x ? x[k] * scale : 0.0);
        break;
    }
    case FLASHC_DTYPE_BF16: {
        uint16_t *o = (uint16_t *)p->o + off;
        for (int32_t k = 0; k < d; ++k) o[k] = flashc_double_to_bf16(x ? x[k] * scale : 0.0);
        break;
    }
    default: break; /* excluded by supported_dtypes() */
    }
}

/* Decode the block's query rows into the interleaved tiles (rows past nrows are zeros). */
static void load_queries(head_ctx *c, int32_t i0, int32_t nrows)
{
    const flashc_problem *p = c->p;
    const int32_t d = p->d;
    for (int32_t r = 0; r < REF_BLOCK_ROWS; ++r) {
        if (r < nrows) {
            const int64_t row = q_row0(p, c->bi) + i0 + r;
            decode_strided(p->in_dtype, p->q, c->bi * p->q_stride[0] + row * p->q_stride[1] + c->hq * p->q_stride[2],
                           1, d, c->tmp);
        } else {
            memset(c->tmp, 0, sizeof(double) * (size_t)d);
        }
        double *q = c->Q + (int64_t)(r / REF_ROWS) * d * REF_ROWS + r % REF_ROWS;
        for (int32_t k = 0; k < d; ++k) q[(int64_t)k * REF_ROWS] = c->tmp[k];
    }
}

/* Rows i0 .. i0+nrows-1 (nrows <= REF_BLOCK_ROWS) of head hq: Q·K over the union of their key
   ranges, then each row's own mask, logits and softmax, then P·V, then the outputs. */
static void attend_block(head_ctx *c, int32_t i0, int32_t nrows)
{
    const flashc_problem *p = c->p;
    const int32_t d = p->d, groups = (nrows + REF_ROWS - 1) / REF_ROWS;
    int64_t lo[REF_BLOCK_ROWS], hi[REF_BLOCK_ROWS], ulo = INT64_MAX, uhi = -1;
    double m[REF_BLOCK_ROWS], sum[REF_BLOCK_ROWS];
    for (int r = 0; r < nrows; ++r) {
        key_range(p, i0 + r, c->sq, c->sk, &lo[r], &hi[r]);
        if (lo[r] <= hi[r]) {
            if (lo[r] < ulo) ulo = lo[r];
            if (hi[r] > uhi) uhi = hi[r];
        }
        m[r] = -INFINITY;
        sum[r] = 0.0;
    }
    const int64_t t0 = uhi >= 0 ? ulo - ulo % REF_KEYS : 0; /* tiles start on a multiple of REF_KEYS */

    if (uhi >= 0) {
        /* Q·K, chunk by chunk so a chunk of key panels stays in cache for every tile of rows. */
        load_queries(c, i0, nrows);
        for (int64_t tc = t0; tc <= uhi; tc += REF_CHUNK) {
            const int64_t tend = tc + REF_CHUNK - 1 < uhi ? tc + REF_CHUNK - 1 : uhi;
            for (int32_t g = 0; g < groups; ++g) {
                const double *q = c->Q + (int64_t)g * d * REF_ROWS;
                for (int64_t t = tc; t <= tend; t += REF_KEYS) {
                    double tile[REF_ROWS][REF_KEYS];
                    score_tile(q, c->KP + (t / REF_KEYS) * d * REF_KEYS, d, tile);
                    for (int r = 0; r < REF_ROWS; ++r)
                        for (int k = 0; k < REF_KEYS; ++k)
                            c->S[(int64_t)(g * REF_ROWS + r) * c->ldk + (t - t0) + k] = tile[r][k];
                }
            }
        }
        /* Each row: logits over its own key range, then exp relative to its maximum. */
        memset(c->P, 0, sizeof(double) * (size_t)(groups * c->ldk * REF_ROWS));
        for (int r = 0; r < nrows; ++r) {
            if (lo[r] > hi[r]) continue;
            double *s = c->S + (int64_t)r * c->ldk + (lo[r] - t0);
            m[r] = finish_scores(c, i0 + r, lo[r], hi[r], s);
            if (m[r] == -INFINITY) continue; /* every score −inf: treated as no key */
            double *pr = c->P + (int64_t)(r / REF_ROWS) * c->ldk * REF_ROWS + r % REF_ROWS;
            for (int64_t t = lo[r]; t <= hi[r]; ++t) {
                double e = exp(s[t - lo[r]] - m[r]);
                sum[r] += e;
                pr[(t - t0) * REF_ROWS] = e;
            }
        }
        /* P·V, chunk by chunk like Q·K, accumulating into O. */
        memset(c->O, 0, sizeof(double) * (size_t)(REF_BLOCK_ROWS * c->dp));
        for (int64_t tc = t0; tc <= uhi; tc += REF_CHUNK) {
            const int64_t tend = tc + REF_CHUNK - 1 < uhi ? tc + REF_CHUNK - 1 : uhi;
            for (int32_t g = 0; g < groups; ++g) {
                const double *pg = c->P + ((int64_t)g * c->ldk + (tc - t0)) * REF_ROWS;
                for (int32_t dd = 0; dd < c->dp; dd += REF_PV_COLS) {
                    double o[REF_ROWS][REF_PV_COLS];
                    pv_tile(pg, c->V, c->dp, tc, tend, dd, o);
                    for (int r = 0; r < REF_ROWS; ++r)
                        for (int k = 0; k < REF_PV_COLS; ++k) c->O[(int64_t)(g * REF_ROWS + r) * c->dp + dd + k] += o[r][k];
                }
            }
        }
    }
    for (int r = 0; r < nrows; ++r) {
        const int64_t row = q_row0(p, c->bi) + i0 + r;
        const int64_t o_off = c->bi * p->o_stride[0] + row * p->o_stride[1] + c->hq * p->o_stride[2];
        float *lse = p->lse ? p->lse + c->bi * p->lse_stride[0] + c->hq * p->lse_stride[1] + row : NULL;
        if (m[r] == -INFINITY) { /* no key, or every score −inf */
            store_row(p, o_off, NULL, 0.0);
            if (lse) *lse = -INFINITY;
        } else {
            store_row(p, o_off, c->O + (int64_t)r * c->dp, c->v_scale / sum[r]);
            if (lse) *lse = (float)(m[r] + log(sum[r]));
        }
    }
}

/* ---- Entry point ------------------------------------------------------------------------- */

flashc_status flashc_cpu_forward(const flashc_problem *p)
{
    if (!p) return flashc_error(FLASHC_STATUS_INTERNAL_ERROR, "flashc_cpu_forward: problem is NULL");
    if (!supported_dtypes(p))
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                            "cpu backend: dtypes in=%d out=%d bias=%d are not implemented (inputs f16/bf16/e4m3/int8, "
                            "outputs f32/f16/bf16, bias f32/f16/bf16)",
                            (int)p->in_dtype, (int)p->out_dtype, (int)p->bias_dtype);
    if (p->b < 0 || p->h_q < 1 || p->h_kv < 1 || p->h_q % p->h_kv != 0 || p->d < 1 ||
        (p->kv_layout == FLASHC_KV_PAGED && (p->page_size < 1 || !p->page_table)))
        return flashc_error(FLASHC_STATUS_INTERNAL_ERROR, "cpu backend: problem not normalised (b=%d h_q=%d h_kv=%d d=%d)",
                            (int)p->b, (int)p->h_q, (int)p->h_kv, (int)p->d);
    int32_t max_sk;
    flashc_status st = check_metadata(p, &max_sk);
    if (st != FLASHC_STATUS_SUCCESS) return st;

    /* Buffers, sized for the longest key sequence; padded so whole tiles never leave them. Zeroed
       once: padding columns then hold zeros, and tiles past the last key read finite values. */
    const int32_t d = p->d;
    const int32_t dp = (d + REF_PV_COLS - 1) / REF_PV_COLS * REF_PV_COLS;
    const int64_t ldk = ((int64_t)max_sk + 2 * REF_KEYS - 1) / REF_KEYS * REF_KEYS;
    const size_t n_kp = (size_t)(d * ldk), n_v = (size_t)(ldk * dp), n_q = (size_t)REF_BLOCK_ROWS * d,
                 n_s = (size_t)(REF_BLOCK_ROWS * ldk), n_p = (size_t)(REF_BLOCK_ROWS * ldk),
                 n_o = (size_t)REF_BLOCK_ROWS * dp,
                 n_tmp = (size_t)(ldk > d ? ldk : d);
    const size_t total = n_kp + n_v + n_q + n_s + n_p + n_o + n_tmp;
    double *mem = calloc(total, sizeof(double));
    if (!mem)
        return flashc_error(FLASHC_STATUS_OUT_OF_MEMORY, "cpu backend: cannot allocate %llu bytes of scratch",
                            (unsigned long long)(total * sizeof(double)));

    const int32_t group = p->h_q / p->h_kv;
    head_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.dp = dp;
    c.ldk = ldk;
    double *KP = mem, *V = KP + n_kp;
    c.KP = KP;
    c.V = V;
    c.Q = V + n_v;
    c.S = c.Q + n_q;
    c.P = c.S + n_s;
    c.O = c.P + n_p;
    c.tmp = c.O + n_o;
    for (int32_t bi = 0; bi < p->b; ++bi) {
        c.bi = bi;
        c.sq = flashc_seqlen_q(p, bi);
        c.sk = flashc_seqlen_k(p, bi);
        for (int32_t hk = 0; hk < p->h_kv; ++hk) {
            if (c.sq > 0) decode_kv_head(p, bi, hk, c.sk, KP, V, dp, c.tmp);
            c.qk_scale = (double)p->softmax_scale * descale(p->q_descale, p->q_descale_stride, bi, hk) *
                         descale(p->k_descale, p->k_descale_stride, bi, hk);
            c.v_scale = descale(p->v_descale, p->v_descale_stride, bi, hk);
            for (int32_t g = 0; g < group; ++g) {
                c.hq = hk * group + g;
                c.slope = p->alibi ? (double)p->alibi[bi * p->alibi_stride[0] + c.hq * p->alibi_stride[1]] : 0.0;
                for (int32_t i0 = 0; i0 < c.sq; i0 += REF_BLOCK_ROWS)
                    attend_block(&c, i0, c.sq - i0 < REF_BLOCK_ROWS ? c.sq - i0 : REF_BLOCK_ROWS);
            }
        }
    }
    free(mem);
    return FLASHC_STATUS_SUCCESS;
}
