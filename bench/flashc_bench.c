/*
 * flashc_bench: times flashc_attention_forward on the GPU.
 *
 *   flashc_bench [--set fa3|decode|varlen|paged|all[,...]] [--dtype f16|bf16|fp8|int8[,...]]
 *                [--backend auto|sm80|sm90] [--repeats N] [--warmup N] [--hdim LIST]
 *                [--seqlen LIST] [--quick] [--vt auto|0|1] [--lse] [--peak-tflops X]
 *                [--peak-gbs X] [--softcap X] [--alibi] [--json FILE]
 *
 * Method (docs/bench.md): inputs are random and never zero (a random chunk is copied to the device
 * and tiled there), the output is poisoned before the first call and checked for non-finite values
 * after the last; each timed call is bracketed by CUDA events on its own stream, preceded by a
 * cudaMemsetAsync over a buffer of 4x the L2 so that no input is served from the cache; the figure
 * is the median of --repeats calls after --warmup untimed ones.
 *
 * Figures: TFLOPS = 4 * h * d * (scored query-key pairs) / time, where a full sequence pair counts
 * s_q * s_k, causal with s_q == s_k counts half of that (the FlashAttention convention) and causal
 * with s_q != s_k counts the unmasked pairs exactly; varlen sums over its sequences. Decode shapes
 * report GB/s of K and V read (each byte once). "%peak" is against a measured ceiling of the H200
 * (bf16 GEMM 787 TFLOPS, fp8 GEMM 1255 TFLOPS, device copy 4271 GB/s) unless --peak-* says otherwise.
 *
 * A combination flashc answers NOT_SUPPORTED prints "n/a (not supported: <message>)". Without a CUDA
 * device the program says so and exits 0. Exit status 1 means a real failure (CUDA error, a status
 * other than NOT_SUPPORTED, or non-finite output).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "flashc.h"

/* ---- Budget and defaults ----------------------------------------------------------------------- */
#define DEFAULT_REPEATS 30
#define DEFAULT_WARMUP 5
#define MAX_REPEATS 10000
#define FA3_TOKENS 16384          /* batch * seqlen of the FlashAttention-3 paper's grid */
#define FA3_HEAD_WIDTH 2048       /* heads * head dim of that grid */
#define L2_FLUSH_FACTOR 4         /* flush buffer = this many times the L2 (>= 2x is required) */
#define MIN_FLUSH_BYTES ((size_t)256 << 20)
/* Random chunk tiled over each device buffer. An odd element count keeps its period off every
   power-of-two row, head and batch stride. */
#define FILL_CHUNK_ELEMS ((size_t)4194301)
/* int8 inputs in [-127, 127] dequantise by this descale to about [-2, 2]. */
#define INT8_DESCALE (1.0f / 64.0f)
/* Ceilings measured on the H200 this project targets (/work/shared/reference/anchors-h200.md). */
#define PEAK_TFLOPS_16BIT 787.0
#define PEAK_TFLOPS_8BIT 1255.0
#define PEAK_COPY_GBS 4271.0
#define MAX_LIST 16
#define SHAPE_CHARS 128
#define MESSAGE_CHARS 512
#define TABLE_MESSAGE_CHARS 120

/* ---- Options ----------------------------------------------------------------------------------- */
enum { SET_FA3 = 1, SET_DECODE = 2, SET_VARLEN = 4, SET_PAGED = 8, SET_ALL = 15 };
enum { VT_AUTO = -1 };

typedef struct bench_opts {
    unsigned sets;
    flashc_dtype dtypes[MAX_LIST];
    int n_dtypes;
    flashc_backend backend;
    int repeats, warmup;
    int hdims[MAX_LIST], n_hdims;       /* 0 entries: every head dim of the set */
    int seqlens[MAX_LIST], n_seqlens;   /* 0 entries: every seqlen of the set */
    int quick;
    int vt;                             /* VT_AUTO, 0 or 1 */
    int lse;
    float softcap;                      /* > 0: every shape with this softcap */
    int alibi;                          /* 1: every shape with ALiBi slopes [h_q] */
    int list_only;                      /* print the shapes and their work, run nothing */
    double peak_tflops, peak_gbs;       /* 0: per-dtype defaults */
    const char *json_path;
} bench_opts;

/* ---- Cases ------------------------------------------------------------------------------------- */
typedef enum { LAYOUT_DENSE, LAYOUT_VARLEN, LAYOUT_PAGED } layout_kind;

typedef struct bench_case {
    const char *set;
    layout_kind layout;
    int b, h_q, h_kv, s_q, s_k, d; /* varlen: b sequences, s_q = s_k = longest */
    int causal;
    int page_size;                 /* paged only */
    int report_bytes;              /* 1: GB/s of K+V read (decode); 0: TFLOPS */
    int32_t *seqlens;              /* varlen: b lengths, q and k alike (owned) */
    int64_t total;                 /* varlen: sum of seqlens */
} bench_case;

typedef struct case_list {
    bench_case *v;
    int n, cap;
} case_list;

typedef struct bench_result {
    int ran;                 /* 1: timed; 0: see message */
    int failed;              /* 1: a real failure (counts toward the exit status) */
    flashc_backend backend;  /* the backend that ran (or would have) */
    int v_transposed;
    double ms, tflops, gbs, pct_peak;
    char message[MESSAGE_CHARS];
} bench_result;

/* ---- Small helpers ----------------------------------------------------------------------------- */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void) /* splitmix64: fast, good enough for test data */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int rng_range(int lo, int hi) /* uniform in [lo, hi] */
{
    return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

static const char *dtype_name(flashc_dtype t)
{
    switch (t) {
    case FLASHC_DTYPE_F16: return "f16";
    case FLASHC_DTYPE_BF16: return "bf16";
    case FLASHC_DTYPE_FP8_E4M3: return "fp8";
    case FLASHC_DTYPE_INT8: return "int8";
    default: return "f32";
    }
}

static size_t dtype_size(flashc_dtype t)
{
    return (t == FLASHC_DTYPE_FP8_E4M3 || t == FLASHC_DTYPE_INT8) ? 1 : (t == FLASHC_DTYPE_F32 ? 4 : 2);
}

static const char *backend_name(flashc_backend b)
{
    switch (b) {
    case FLASHC_BACKEND_CPU: return "cpu";
    case FLASHC_BACKEND_SM80: return "sm80";
    case FLASHC_BACKEND_SM90: return "sm90";
    default: return "auto";
    }
}

static void set_message(bench_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int list_has(const int *v, int n, int x)
{
    if (n == 0) return 1;
    for (int i = 0; i < n; ++i)
        if (v[i] == x) return 1;
    return 0;
}

/* Query-key pairs left by the mask: causal is bottom-right aligned (flashc.h). With s_q == s_k the
   FlashAttention convention of exactly half is kept so figures compare with published ones. */
static double scored_pairs(int64_t s_q, int64_t s_k, int causal)
{
    if (!causal) return (double)s_q * (double)s_k;
    if (s_q == s_k) return 0.5 * (double)s_q * (double)s_k;
    double n = 0.0;
    for (int64_t i = 0; i < s_q; ++i) {
        int64_t keys = i + (s_k - s_q) + 1; /* j <= i + s_k - s_q */
        if (keys > s_k) keys = s_k;
        if (keys > 0) n += (double)keys;
    }
    return n;
}

static double case_flops(const bench_case *c)
{
    double per_pair = 4.0 * c->h_q * c->d; /* QK^T and PV, 2 flops per multiply-add each */
    if (c->layout == LAYOUT_VARLEN) {
        double sum = 0.0;
        for (int i = 0; i < c->b; ++i) sum += scored_pairs(c->seqlens[i], c->seqlens[i], c->causal);
        return per_pair * sum;
    }
    return per_pair * c->b * scored_pairs(c->s_q, c->s_k, c->causal);
}

static double case_kv_bytes(const bench_case *c, flashc_dtype dt)
{
    return 2.0 * c->b * (double)c->s_k * c->h_kv * c->d * (double)dtype_size(dt);
}

static void case_shape(const bench_case *c, int vt, char *out, size_t n)
{
    int k = 0;
    if (c->layout == LAYOUT_VARLEN)
        k = snprintf(out, n, "seqs=%d tokens=%lld max=%d h=%d/%d d=%d", c->b, (long long)c->total,
                     c->s_q, c->h_q, c->h_kv, c->d);
    else
        k = snprintf(out, n, "b=%d h=%d/%d s=%d/%d d=%d", c->b, c->h_q, c->h_kv, c->s_q, c->s_k, c->d);
    if (k < 0 || (size_t)k >= n) return;
    if (c->layout == LAYOUT_PAGED) k += snprintf(out + k, n - (size_t)k, " page=%d", c->page_size);
    if (c->causal && (size_t)k < n) k += snprintf(out + k, n - (size_t)k, " causal");
    if (vt && (size_t)k < n) snprintf(out + k, n - (size_t)k, " vT");
}

static int add_case(case_list *l, bench_case c)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        bench_case *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = c;
    return 0;
}

/* ---- Shape sets -------------------------------------------------------------------------------- */
/* fa3: batch * seqlen = 16k tokens, heads * head dim = 2048, causal and not. */
static int build_fa3(const bench_opts *o, case_list *l)
{
    static const int hdims[] = {64, 128, 256};
    static const int full[] = {512, 1024, 2048, 4096, 8192, 16384};
    static const int quick[] = {1024, 8192};
    const int *seqs = o->quick ? quick : full;
    int n_seqs = o->quick ? 2 : 6;
    for (int hi = 0; hi < 3; ++hi) {
        if (!list_has(o->hdims, o->n_hdims, hdims[hi])) continue;
        for (int causal = 0; causal <= 1; ++causal)
            for (int si = 0; si < n_seqs; ++si) {
                if (!list_has(o->seqlens, o->n_seqlens, seqs[si])) continue;
                bench_case c = {"fa3", LAYOUT_DENSE, FA3_TOKENS / seqs[si], FA3_HEAD_WIDTH / hdims[hi],
                                FA3_HEAD_WIDTH / hdims[hi], seqs[si], seqs[si], hdims[hi], causal, 0, 0,
                                NULL, 0};
                if (add_case(l, c)) return -1;
            }
    }
    return 0;
}

/* decode: the anchor rows (b, h_q, h_kv, s_k) at d = 128, one and four query tokens, no mask (the
   same math PyTorch SDPA runs in bench_sdpa.py). */
static int build_decode(const bench_opts *o, case_list *l)
{
    typedef struct { int b, h_q, h_kv, s_k, in_quick; } row;
    static const row rows[] = {
        {64, 32, 8, 4096, 1}, {64, 32, 8, 8192, 0}, {64, 32, 8, 16384, 0}, {64, 32, 8, 32768, 1},
        {8, 64, 8, 4096, 1},  {8, 64, 8, 32768, 0},
        {128, 32, 32, 4096, 0}, {128, 32, 32, 32768, 1},
    };
    const int d = 128;
    if (!list_has(o->hdims, o->n_hdims, d)) return 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        if (o->quick && !rows[i].in_quick) continue;
        if (!list_has(o->seqlens, o->n_seqlens, rows[i].s_k)) continue;
        for (int s_q = 1; s_q <= 4; s_q += 3) {
            bench_case c = {"decode", LAYOUT_DENSE, rows[i].b, rows[i].h_q, rows[i].h_kv, s_q,
                            rows[i].s_k, d, 0, 0, 1, NULL, 0};
            if (add_case(l, c)) return -1;
        }
    }
    return 0;
}

/* varlen: 16k tokens packed from sequences of random lengths in [max/4, max] (odd lengths
   included, so tails are exercised), heads * head dim = 2048. */
static int build_varlen(const bench_opts *o, case_list *l)
{
    static const int maxes_full[] = {1024, 4096, 16384};
    static const int maxes_quick[] = {4096};
    static const int hdims[] = {64, 128, 256};
    const int *maxes = o->quick ? maxes_quick : maxes_full;
    int n_max = o->quick ? 1 : 3;
    for (int hi = 0; hi < 3; ++hi) {
        int d = hdims[hi];
        if (o->n_hdims == 0 ? d != 128 : !list_has(o->hdims, o->n_hdims, d)) continue;
        for (int mi = 0; mi < n_max; ++mi) {
            if (!list_has(o->seqlens, o->n_seqlens, maxes[mi])) continue;
            for (int causal = 0; causal <= 1; ++causal) {
                int32_t *lens = malloc(sizeof(int32_t) * FA3_TOKENS);
                if (!lens) return -1;
                int nseq = 0, left = FA3_TOKENS, longest = 0;
                rng_state = 0x5EEDull + (uint64_t)maxes[mi]; /* same mix for causal and not */
                while (left > 0) {
                    int len = rng_range(maxes[mi] / 4, maxes[mi]);
                    if (len > left) len = left;
                    lens[nseq++] = len;
                    left -= len;
                    if (len > longest) longest = len;
                }
                bench_case c = {"varlen", LAYOUT_VARLEN, nseq, FA3_HEAD_WIDTH / d, FA3_HEAD_WIDTH / d,
                                longest, longest, d, causal, 0, 0, lens, FA3_TOKENS};
                if (add_case(l, c)) { free(lens); return -1; }
            }
        }
    }
    return 0;
}

/* paged: a KV cache in pages of 16, 64 and 256 tokens, pages scattered over the pool. Decode rows
   (GB/s: b 64 h 32/8 8k, and b 8 h 64/8 32k, whose 4 query tokens pack 32 rows per KV head) and
   causal prefill rows over 16k tokens (TFLOPS). */
static int build_paged(const bench_opts *o, case_list *l)
{
    int pages[8] = {16, 64, 256}, n_pages = 3;
    static const int prefill_full[] = {2048, 8192};
    static const int prefill_quick[] = {8192};
    const int d = 128;
    if (!list_has(o->hdims, o->n_hdims, d)) return 0;
    const char *sizes = getenv("FLASHC_BENCH_PAGE_SIZES"); /* diagnostic: other page sizes, e.g. "16,32" */
    if (sizes) {
        n_pages = 0;
        for (const char *t = sizes; *t && n_pages < 8;) {
            const int v = atoi(t);
            if (v > 0) pages[n_pages++] = v;
            t = strchr(t, ',');
            if (!t) break;
            ++t;
        }
    }
    for (int pi = 0; pi < n_pages; ++pi) {
        if (o->quick && pages[pi] == 64) continue;
        for (int s_q = 1; s_q <= 4; s_q += 3) {
            if (o->quick && s_q != 1) continue;
            bench_case c = {"paged", LAYOUT_PAGED, 64, 32, 8, s_q, 8192, d, 0, pages[pi], 1, NULL, 0};
            if (list_has(o->seqlens, o->n_seqlens, c.s_k) && add_case(l, c)) return -1;
            bench_case small = {"paged", LAYOUT_PAGED, 8, 64, 8, s_q, 32768, d, 0, pages[pi], 1, NULL, 0};
            if (list_has(o->seqlens, o->n_seqlens, small.s_k) && add_case(l, small)) return -1;
        }
        const int *pre = o->quick ? prefill_quick : prefill_full;
        for (int si = 0; si < (o->quick ? 1 : 2); ++si) {
            int s = pre[si];
            bench_case c = {"paged", LAYOUT_PAGED, FA3_TOKENS / s, FA3_HEAD_WIDTH / d,
                            FA3_HEAD_WIDTH / d, s, s, d, 1, pages[pi], 0, NULL, 0};
            if (list_has(o->seqlens, o->n_seqlens, s) && add_case(l, c)) return -1;
        }
    }
    return 0;
}

/* ---- Random device data ------------------------------------------------------------------------ */
/* Host chunks of random, finite, non-zero encodings of the current dtype (q, k, v differ). */
typedef struct fill_chunks {
    flashc_dtype dtype;
    void *chunk[3];
    size_t bytes;
} fill_chunks;

static void fill_random_encodings(void *dst, size_t n, flashc_dtype dt)
{
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = rng_next();
        unsigned sign = (unsigned)(r & 1), mant = (unsigned)(r >> 8);
        switch (dt) {
        case FLASHC_DTYPE_F16: { /* |x| in [2^-5, 1): biased exponent 10..14 */
            unsigned e = 10u + (unsigned)((r >> 1) % 5);
            ((uint16_t *)dst)[i] = (uint16_t)((sign << 15) | (e << 10) | (mant & 0x3ffu));
            break;
        }
        case FLASHC_DTYPE_BF16: { /* |x| in [2^-5, 1): biased exponent 122..126 */
            unsigned e = 122u + (unsigned)((r >> 1) % 5);
            ((uint16_t *)dst)[i] = (uint16_t)((sign << 15) | (e << 7) | (mant & 0x7fu));
            break;
        }
        case FLASHC_DTYPE_FP8_E4M3: { /* |x| in [2^-3, 4): biased exponent 4..8, never NaN */
            unsigned e = 4u + (unsigned)((r >> 1) % 5);
            ((uint8_t *)dst)[i] = (uint8_t)((sign << 7) | (e << 3) | (mant & 0x7u));
            break;
        }
        default: { /* int8 in [-127, 127] \ {0} */
            int v = 1 + (int)(mant % 127u);
            ((int8_t *)dst)[i] = (int8_t)(sign ? -v : v);
            break;
        }
        }
    }
}

static int chunks_prepare(fill_chunks *f, flashc_dtype dt)
{
    if (f->chunk[0] && f->dtype == dt) return 0;
    for (int i = 0; i < 3; ++i) { free(f->chunk[i]); f->chunk[i] = NULL; }
    f->dtype = dt;
    f->bytes = FILL_CHUNK_ELEMS * dtype_size(dt);
    for (int i = 0; i < 3; ++i) {
        f->chunk[i] = malloc(f->bytes);
        if (!f->chunk[i]) return -1;
        rng_state = 0xC0FFEEull * (uint64_t)(i + 1) + (uint64_t)dt;
        fill_random_encodings(f->chunk[i], FILL_CHUNK_ELEMS, dt);
    }
    return 0;
}

/* Copy one chunk to the start of dst, then double the filled prefix with device copies. */
static cudaError_t fill_device(void *dst, size_t bytes, const void *chunk, size_t chunk_bytes)
{
    size_t done = bytes < chunk_bytes ? bytes : chunk_bytes;
    cudaError_t e = cudaMemcpy(dst, chunk, done, cudaMemcpyHostToDevice);
    while (e == cudaSuccess && done < bytes) {
        size_t n = bytes - done < done ? bytes - done : done;
        e = cudaMemcpy((char *)dst + done, dst, n, cudaMemcpyDeviceToDevice);
        done += n;
    }
    return e;
}

/* ---- Timing one case --------------------------------------------------------------------------- */
typedef struct bench_ctx {
    cudaStream_t stream;
    cudaEvent_t *events;     /* 2 per repeat */
    void *flush;
    size_t flush_bytes;
    fill_chunks chunks;
} bench_ctx;

/* Device allocations of one case, released together. */
#define MAX_ALLOCS 16
typedef struct allocs {
    void *p[MAX_ALLOCS];
    int n;
} allocs;

static cudaError_t dev_alloc(allocs *a, void **out, size_t bytes)
{
    *out = NULL;
    if (a->n == MAX_ALLOCS) return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMalloc(out, bytes ? bytes : 16);
    if (e == cudaSuccess) a->p[a->n++] = *out;
    return e;
}

static void dev_free_all(allocs *a)
{
    for (int i = 0; i < a->n; ++i) cudaFree(a->p[i]);
    a->n = 0;
}

static flashc_tensor tensor_of(void *data, flashc_dtype dt, int ndim, int64_t e0, int64_t e1, int64_t e2,
                               int64_t e3)
{
    int64_t shape[4] = {e0, e1, e2, e3};
    return flashc_make_tensor(data, dt, ndim, shape);
}

/* Count non-finite f16/bf16 values (the poison is all-ones bytes, a NaN in both). */
static size_t count_nonfinite(const uint16_t *h, size_t n, flashc_dtype dt)
{
    uint16_t mask = dt == FLASHC_DTYPE_F16 ? 0x7c00u : 0x7f80u;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += (h[i] & mask) == mask;
    return bad;
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            set_message(r, "CUDA error %s in %s", cudaGetErrorString(e_), #call);                  \
            r->failed = 1;                                                                         \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#define CK_ALLOC(call, what, bytes)                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            (void)cudaGetLastError();                                                              \
            set_message(r, "skipped: cudaMalloc of %.2f GiB for %s failed (%s)",                   \
                        (double)(bytes) / (1u << 30), what, cudaGetErrorString(e_));               \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static void run_case(const bench_opts *o, bench_ctx *ctx, const bench_case *c, flashc_dtype dt, int vt,
                     bench_result *r)
{
    memset(r, 0, sizeof *r);
    r->backend = o->backend;
    r->v_transposed = vt;
    allocs a = {{0}, 0};
    uint16_t *host_out = NULL;
    int32_t *host_table = NULL;
    const size_t es = dtype_size(dt);
    const flashc_dtype out_dt = dt == FLASHC_DTYPE_F16 ? FLASHC_DTYPE_F16 : FLASHC_DTYPE_BF16;
    const int varlen = c->layout == LAYOUT_VARLEN, paged = c->layout == LAYOUT_PAGED;

    /* Element counts. Paged pools hold exactly the pages the sequences use. */
    const int64_t q_rows = varlen ? c->total : (int64_t)c->b * c->s_q;
    const int pages_per_seq = paged ? (c->s_k + c->page_size - 1) / c->page_size : 0;
    const int64_t num_pages = (int64_t)c->b * pages_per_seq;
    const int64_t kv_rows = varlen ? c->total : paged ? num_pages * c->page_size : (int64_t)c->b * c->s_k;
    const size_t q_elems = (size_t)q_rows * c->h_q * c->d;
    const size_t kv_elems = (size_t)kv_rows * c->h_kv * c->d;

    if (chunks_prepare(&ctx->chunks, dt)) { set_message(r, "host allocation failed"); r->failed = 1; goto done; }

    void *q, *k, *v, *out, *lse = NULL, *workspace = NULL, *descale = NULL;
    int32_t *cu_seqlens = NULL, *page_table = NULL, *seqused = NULL;
    CK_ALLOC(dev_alloc(&a, &q, q_elems * es), "q", q_elems * es);
    CK_ALLOC(dev_alloc(&a, &k, kv_elems * es), "k", kv_elems * es);
    CK_ALLOC(dev_alloc(&a, &v, kv_elems * es), "v", kv_elems * es);
    CK_ALLOC(dev_alloc(&a, &out, q_elems * 2), "out", q_elems * 2);
    CK(fill_device(q, q_elems * es, ctx->chunks.chunk[0], ctx->chunks.bytes));
    CK(fill_device(k, kv_elems * es, ctx->chunks.chunk[1], ctx->chunks.bytes));
    CK(fill_device(v, kv_elems * es, ctx->chunks.chunk[2], ctx->chunks.bytes));
    CK(cudaMemset(out, 0xff, q_elems * 2)); /* poison: NaN in f16 and bf16 */

    flashc_attention_params p;
    flashc_attention_params_init(&p);
    p.backend = o->backend;
    p.causal = c->causal;
    p.v_transposed = vt;
    if (varlen) {
        p.q = tensor_of(q, dt, 3, c->total, c->h_q, c->d, 0);
        p.k = tensor_of(k, dt, 3, c->total, c->h_kv, c->d, 0);
        p.v = vt ? tensor_of(v, dt, 3, c->h_kv, c->d, c->total, 0) : tensor_of(v, dt, 3, c->total, c->h_kv, c->d, 0);
        p.out = tensor_of(out, out_dt, 3, c->total, c->h_q, c->d, 0);
        int32_t *cu = malloc(sizeof(int32_t) * (size_t)(c->b + 1));
        if (!cu) { set_message(r, "host allocation failed"); r->failed = 1; goto done; }
        cu[0] = 0;
        for (int i = 0; i < c->b; ++i) cu[i + 1] = cu[i] + c->seqlens[i];
        cudaError_t e = dev_alloc(&a, (void **)&cu_seqlens, sizeof(int32_t) * (size_t)(c->b + 1));
        if (e == cudaSuccess) e = cudaMemcpy(cu_seqlens, cu, sizeof(int32_t) * (size_t)(c->b + 1), cudaMemcpyHostToDevice);
        free(cu);
        CK(e);
        p.batch = c->b;
        p.cu_seqlens_q = p.cu_seqlens_k = cu_seqlens;
        p.max_seqlen_q = p.max_seqlen_k = c->s_q;
    } else {
        p.q = tensor_of(q, dt, 4, c->b, c->s_q, c->h_q, c->d);
        p.out = tensor_of(out, out_dt, 4, c->b, c->s_q, c->h_q, c->d);
        if (paged) {
            p.k = tensor_of(k, dt, 4, num_pages, c->page_size, c->h_kv, c->d);
            p.v = vt ? tensor_of(v, dt, 4, num_pages, c->h_kv, c->d, c->page_size)
                     : tensor_of(v, dt, 4, num_pages, c->page_size, c->h_kv, c->d);
            if (vt && getenv("FLASHC_BENCH_VT_HEAD_OUTER")) { /* diagnostic: V^T pool [h_kv, pages, d, page] */
                p.v.stride[0] = (int64_t)c->d * c->page_size;
                p.v.stride[1] = num_pages * c->d * c->page_size;
            }
            /* Scatter the pages: a random permutation of the pool. Diagnostics, to separate the
               kernel's cost from the memory system's: FLASHC_BENCH_PAGES_IN_ORDER (the identity),
               FLASHC_BENCH_PAGE_GROUP=G (runs of G consecutive pool pages move together, so pages
               of p keys lie in memory like pages of G·p) and FLASHC_BENCH_PAGE_WINDOW=W (pages are
               shuffled only within windows of W pool pages, so accesses stay as local as W pages). */
            host_table = malloc(sizeof(int32_t) * (size_t)num_pages);
            if (!host_table) { set_message(r, "host allocation failed"); r->failed = 1; goto done; }
            for (int64_t i = 0; i < num_pages; ++i) host_table[i] = (int32_t)i;
            rng_state = 0x9A6E5ull + (uint64_t)c->page_size;
            const char *group_env = getenv("FLASHC_BENCH_PAGE_GROUP"), *window_env = getenv("FLASHC_BENCH_PAGE_WINDOW");
            int64_t group = group_env ? atoll(group_env) : 1, window = window_env ? atoll(window_env) : num_pages;
            if (group < 1 || num_pages % group != 0) group = 1;
            if (window < 1) window = num_pages;
            if (!getenv("FLASHC_BENCH_PAGES_IN_ORDER")) {
                const int64_t units = num_pages / group;
                for (int64_t w0 = 0; w0 < units; w0 += window) {
                    const int64_t n = units - w0 < window ? units - w0 : window;
                    for (int64_t i = n - 1; i > 0; --i) { /* Fisher-Yates over the window's units */
                        const int64_t j = (int64_t)(rng_next() % (uint64_t)(i + 1));
                        for (int64_t g = 0; g < group; ++g) {
                            int32_t *x = &host_table[(w0 + i) * group + g], *y = &host_table[(w0 + j) * group + g];
                            const int32_t t = *x; *x = *y; *y = t;
                        }
                    }
                }
            }
            CK_ALLOC(dev_alloc(&a, (void **)&page_table, sizeof(int32_t) * (size_t)num_pages), "page table", 0);
            CK(cudaMemcpy(page_table, host_table, sizeof(int32_t) * (size_t)num_pages, cudaMemcpyHostToDevice));
            for (int i = 0; i < c->b; ++i) host_table[i] = c->s_k; /* reuse as seqused_k */
            CK_ALLOC(dev_alloc(&a, (void **)&seqused, sizeof(int32_t) * (size_t)c->b), "seqused_k", 0);
            CK(cudaMemcpy(seqused, host_table, sizeof(int32_t) * (size_t)c->b, cudaMemcpyHostToDevice));
            p.page_table = page_table;
            p.page_table_stride = pages_per_seq;
            p.max_pages_per_seq = pages_per_seq;
            p.seqused_k = seqused;
            p.max_seqlen_k = c->s_k;
        } else {
            p.k = tensor_of(k, dt, 4, c->b, c->s_k, c->h_kv, c->d);
            p.v = vt ? tensor_of(v, dt, 4, c->b, c->h_kv, c->d, c->s_k) : tensor_of(v, dt, 4, c->b, c->s_k, c->h_kv, c->d);
        }
    }
    if (o->lse) {
        size_t n = (size_t)q_rows * c->h_q;
        CK_ALLOC(dev_alloc(&a, &lse, n * sizeof(float)), "lse", n * sizeof(float));
        p.lse = varlen ? tensor_of(lse, FLASHC_DTYPE_F32, 2, c->h_q, c->total, 0, 0)
                       : tensor_of(lse, FLASHC_DTYPE_F32, 3, c->b, c->h_q, c->s_q, 0);
    }
    p.softcap = o->softcap;
    if (o->alibi) { /* the usual geometric slopes 2^(-8 (i + 1) / h_q) */
        float *slopes = malloc(sizeof(float) * (size_t)c->h_q);
        void *dev_slopes = NULL;
        if (!slopes) { set_message(r, "host allocation failed"); r->failed = 1; goto done; }
        for (int i = 0; i < c->h_q; ++i) slopes[i] = exp2f(-8.0f * (float)(i + 1) / (float)c->h_q);
        cudaError_t e = dev_alloc(&a, &dev_slopes, sizeof(float) * (size_t)c->h_q);
        if (e == cudaSuccess) e = cudaMemcpy(dev_slopes, slopes, sizeof(float) * (size_t)c->h_q, cudaMemcpyHostToDevice);
        free(slopes);
        CK(e);
        p.alibi_slopes = tensor_of(dev_slopes, FLASHC_DTYPE_F32, 1, c->h_q, 0, 0, 0);
    }
    if (dt == FLASHC_DTYPE_INT8) { /* one descale for all: a [b, h_kv] view with stride 0 */
        const float h = INT8_DESCALE;
        CK_ALLOC(dev_alloc(&a, &descale, sizeof(float)), "descale", 0);
        CK(cudaMemcpy(descale, &h, sizeof h, cudaMemcpyHostToDevice));
        flashc_tensor t = tensor_of(descale, FLASHC_DTYPE_F32, 2, c->b, c->h_kv, 0, 0);
        t.stride[0] = t.stride[1] = 0;
        p.q_descale = p.k_descale = p.v_descale = t;
    }

    /* Which backend runs it; NOT_SUPPORTED (or any refusal) is reported, not fatal. */
    flashc_status st = flashc_attention_select_backend(&p, &r->backend);
    if (st == FLASHC_STATUS_SUCCESS && o->backend != FLASHC_BACKEND_AUTO) r->backend = o->backend;
    size_t ws_bytes = 0;
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_attention_workspace_size(&p, &ws_bytes);
    if (st == FLASHC_STATUS_SUCCESS && ws_bytes) {
        cudaError_t e = dev_alloc(&a, &workspace, ws_bytes);
        CK_ALLOC(e, "workspace", ws_bytes);
    }
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_attention_forward(&p, workspace, ws_bytes, ctx->stream);
    if (st != FLASHC_STATUS_SUCCESS) {
        if (st == FLASHC_STATUS_NOT_SUPPORTED) {
            set_message(r, "not supported: %s", flashc_last_error());
        } else {
            set_message(r, "%s: %s", flashc_status_string(st), flashc_last_error());
            r->failed = 1;
        }
        goto done;
    }

    /* Warm-up (one call already made), then the timed calls, each after an L2 flush. */
    for (int i = 1; i < o->warmup; ++i) {
        st = flashc_attention_forward(&p, workspace, ws_bytes, ctx->stream);
        if (st != FLASHC_STATUS_SUCCESS) break;
    }
    CK(cudaStreamSynchronize(ctx->stream));
    CK(cudaGetLastError());
    for (int i = 0; i < o->repeats && st == FLASHC_STATUS_SUCCESS; ++i) {
        CK(cudaMemsetAsync(ctx->flush, i & 0xff, ctx->flush_bytes, ctx->stream));
        CK(cudaEventRecord(ctx->events[2 * i], ctx->stream));
        st = flashc_attention_forward(&p, workspace, ws_bytes, ctx->stream);
        CK(cudaEventRecord(ctx->events[2 * i + 1], ctx->stream));
    }
    if (st != FLASHC_STATUS_SUCCESS) {
        set_message(r, "%s on a repeat call: %s", flashc_status_string(st), flashc_last_error());
        r->failed = 1;
        goto done;
    }
    CK(cudaStreamSynchronize(ctx->stream));
    CK(cudaGetLastError());

    float *ms = malloc(sizeof(float) * (size_t)o->repeats);
    if (!ms) { set_message(r, "host allocation failed"); r->failed = 1; goto done; }
    for (int i = 0; i < o->repeats; ++i) {
        cudaError_t e = cudaEventElapsedTime(&ms[i], ctx->events[2 * i], ctx->events[2 * i + 1]);
        if (e != cudaSuccess) { free(ms); CK(e); }
    }
    qsort(ms, (size_t)o->repeats, sizeof(float), cmp_float);
    r->ms = o->repeats % 2 ? ms[o->repeats / 2] : 0.5 * (ms[o->repeats / 2 - 1] + ms[o->repeats / 2]);
    free(ms);

    /* Every output element written and finite: an unwritten or NaN output voids the timing. */
    host_out = malloc(q_elems * 2);
    if (!host_out) { set_message(r, "host allocation failed"); r->failed = 1; goto done; }
    CK(cudaMemcpy(host_out, out, q_elems * 2, cudaMemcpyDeviceToHost));
    size_t bad = count_nonfinite(host_out, q_elems, out_dt);
    if (bad) {
        set_message(r, "invalid output: %zu of %zu elements not finite (unwritten or NaN)", bad, q_elems);
        r->failed = 1;
        goto done;
    }

    r->ran = 1;
    double peak_t = o->peak_tflops > 0 ? o->peak_tflops
                    : (es == 1 ? PEAK_TFLOPS_8BIT : PEAK_TFLOPS_16BIT);
    double peak_b = o->peak_gbs > 0 ? o->peak_gbs : PEAK_COPY_GBS;
    r->tflops = case_flops(c) / (r->ms * 1e-3) / 1e12;
    if (c->report_bytes) {
        r->gbs = case_kv_bytes(c, dt) / (r->ms * 1e-3) / 1e9;
        r->pct_peak = 100.0 * r->gbs / peak_b;
    } else {
        r->pct_peak = 100.0 * r->tflops / peak_t;
    }
done:
    free(host_out);
    free(host_table);
    dev_free_all(&a);
}

/* ---- Output ------------------------------------------------------------------------------------ */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static void json_result(FILE *f, int first, const bench_case *c, flashc_dtype dt, const bench_result *r)
{
    fprintf(f, "%s\n  {\"set\": \"%s\", \"dtype\": \"%s\", \"backend\": \"%s\", \"layout\": \"%s\", "
               "\"b\": %d, \"h_q\": %d, \"h_kv\": %d, \"s_q\": %d, \"s_k\": %d, \"d\": %d, "
               "\"causal\": %d, \"page_size\": %d, \"v_transposed\": %d, \"total_tokens\": %lld, ",
            first ? "" : ",", c->set, dtype_name(dt), backend_name(r->backend),
            c->layout == LAYOUT_VARLEN ? "varlen" : c->layout == LAYOUT_PAGED ? "paged" : "dense",
            c->b, c->h_q, c->h_kv, c->s_q, c->s_k, c->d, c->causal, c->page_size, r->v_transposed,
            (long long)(c->layout == LAYOUT_VARLEN ? c->total : (int64_t)c->b * c->s_q));
    if (r->ran)
        fprintf(f, "\"ms\": %.6f, \"tflops\": %.3f, \"gbs\": %.2f, \"pct_peak\": %.2f, \"status\": \"ok\"}",
                r->ms, r->tflops, r->gbs, r->pct_peak);
    else {
        fprintf(f, "\"ms\": null, \"status\": \"%s\", \"message\": ", r->failed ? "error" : "n/a");
        json_string(f, r->message);
        fputc('}', f);
    }
}

static void print_row(const bench_case *c, flashc_dtype dt, const bench_result *r)
{
    char shape[SHAPE_CHARS];
    case_shape(c, r->v_transposed, shape, sizeof shape);
    printf("%-7s %-5s %-5s %-52s ", c->set, dtype_name(dt), backend_name(r->backend), shape);
    if (!r->ran) /* the table keeps one line per shape; --json has the whole message */
        printf("%s%.*s%s)\n", r->failed ? "FAILED (" : "n/a (", TABLE_MESSAGE_CHARS, r->message,
               strlen(r->message) > TABLE_MESSAGE_CHARS ? "..." : "");
    else if (c->report_bytes)
        printf("%9.4f %8.0f GB/s %6.1f%%  (%.1f TFLOPS)\n", r->ms, r->gbs, r->pct_peak, r->tflops);
    else
        printf("%9.4f %8.1f TFLOPS %4.1f%%\n", r->ms, r->tflops, r->pct_peak);
    fflush(stdout);
}

/* ---- Command line ------------------------------------------------------------------------------ */
static void usage(FILE *f)
{
    fprintf(f,
            "usage: flashc_bench [options]\n"
            "  --set LIST        fa3, decode, varlen, paged or all (comma-separated; default fa3)\n"
            "  --dtype LIST      f16, bf16, fp8, int8 (comma-separated; default bf16)\n"
            "  --backend B       auto, sm80 or sm90 (default auto)\n"
            "  --repeats N       timed calls per shape, median reported (default %d)\n"
            "  --warmup N        untimed calls first (default %d)\n"
            "  --hdim LIST       only these head dims\n"
            "  --seqlen LIST     only these sequence lengths (fa3: s; decode/paged: s_k; varlen: max)\n"
            "  --quick           a few shapes per set\n"
            "  --vt auto|0|1     V sequence-innermost (8-bit only); auto tries 0, then 1 if refused\n"
            "  --lse             also write the log-sum-exp\n"
            "  --softcap X       softcap X (> 0) on every shape\n"
            "  --alibi           ALiBi slopes [h_q] on every shape\n"
            "  --list            print the shapes and their FLOPs/bytes, time nothing (no GPU needed)\n"
            "  --peak-tflops X   ceiling for %%peak (default %.0f 16-bit, %.0f 8-bit)\n"
            "  --peak-gbs X      bandwidth ceiling for decode %%peak (default %.0f)\n"
            "  --json FILE       also write every result as JSON\n",
            DEFAULT_REPEATS, DEFAULT_WARMUP, PEAK_TFLOPS_16BIT, PEAK_TFLOPS_8BIT, PEAK_COPY_GBS);
}

static int parse_int_list(const char *s, int *out, int *n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (*end == 'k' || *end == 'K') { v *= 1024; ++end; }
        if (*end || v <= 0 || *n == MAX_LIST) return -1;
        out[(*n)++] = (int)v;
    }
    return *n ? 0 : -1;
}

static int parse_args(int argc, char **argv, bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sets = SET_FA3;
    o->dtypes[0] = FLASHC_DTYPE_BF16;
    o->n_dtypes = 1;
    o->backend = FLASHC_BACKEND_AUTO;
    o->repeats = DEFAULT_REPEATS;
    o->warmup = DEFAULT_WARMUP;
    o->vt = VT_AUTO;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); exit(0); }
        if (!strcmp(a, "--quick")) { o->quick = 1; continue; }
        if (!strcmp(a, "--lse")) { o->lse = 1; continue; }
        if (!strcmp(a, "--alibi")) { o->alibi = 1; continue; }
        if (!strcmp(a, "--list")) { o->list_only = 1; continue; }
        static const char *const valued[] = {"--set", "--dtype", "--backend", "--repeats", "--warmup", "--hdim",
                                             "--seqlen", "--vt", "--peak-tflops", "--peak-gbs", "--softcap", "--json"};
        int known = 0;
        for (size_t j = 0; j < sizeof valued / sizeof valued[0]; ++j) known |= !strcmp(a, valued[j]);
        if (!known) {
            fprintf(stderr, "flashc_bench: unknown option '%s'\n", a);
            usage(stderr);
            return -1;
        }
        if (!val) { fprintf(stderr, "flashc_bench: %s needs a value\n", a); return -1; }
        ++i;
        if (!strcmp(a, "--set")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", val);
            o->sets = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                if (!strcmp(t, "fa3")) o->sets |= SET_FA3;
                else if (!strcmp(t, "decode")) o->sets |= SET_DECODE;
                else if (!strcmp(t, "varlen")) o->sets |= SET_VARLEN;
                else if (!strcmp(t, "paged")) o->sets |= SET_PAGED;
                else if (!strcmp(t, "all")) o->sets |= SET_ALL;
                else { fprintf(stderr, "flashc_bench: unknown set '%s'\n", t); return -1; }
            }
        } else if (!strcmp(a, "--dtype")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", val);
            o->n_dtypes = 0;
            for (char *t = strtok(buf, ","); t && o->n_dtypes < MAX_LIST; t = strtok(NULL, ",")) {
                flashc_dtype d;
                if (!strcmp(t, "f16") || !strcmp(t, "fp16")) d = FLASHC_DTYPE_F16;
                else if (!strcmp(t, "bf16")) d = FLASHC_DTYPE_BF16;
                else if (!strcmp(t, "fp8") || !strcmp(t, "e4m3")) d = FLASHC_DTYPE_FP8_E4M3;
                else if (!strcmp(t, "int8")) d = FLASHC_DTYPE_INT8;
                else { fprintf(stderr, "flashc_bench: unknown dtype '%s'\n", t); return -1; }
                o->dtypes[o->n_dtypes++] = d;
            }
        } else if (!strcmp(a, "--backend")) {
            if (!strcmp(val, "auto")) o->backend = FLASHC_BACKEND_AUTO;
            else if (!strcmp(val, "sm80")) o->backend = FLASHC_BACKEND_SM80;
            else if (!strcmp(val, "sm90")) o->backend = FLASHC_BACKEND_SM90;
            else { fprintf(stderr, "flashc_bench: unknown backend '%s'\n", val); return -1; }
        } else if (!strcmp(a, "--repeats")) {
            o->repeats = atoi(val);
            if (o->repeats < 1 || o->repeats > MAX_REPEATS) { fprintf(stderr, "flashc_bench: bad --repeats\n"); return -1; }
        } else if (!strcmp(a, "--warmup")) {
            o->warmup = atoi(val);
            if (o->warmup < 1) o->warmup = 1; /* the first call doubles as the support check */
        } else if (!strcmp(a, "--hdim")) {
            if (parse_int_list(val, o->hdims, &o->n_hdims)) { fprintf(stderr, "flashc_bench: bad --hdim\n"); return -1; }
        } else if (!strcmp(a, "--seqlen")) {
            if (parse_int_list(val, o->seqlens, &o->n_seqlens)) { fprintf(stderr, "flashc_bench: bad --seqlen\n"); return -1; }
        } else if (!strcmp(a, "--vt")) {
            o->vt = !strcmp(val, "auto") ? VT_AUTO : atoi(val) ? 1 : 0;
        } else if (!strcmp(a, "--peak-tflops")) {
            o->peak_tflops = atof(val);
        } else if (!strcmp(a, "--peak-gbs")) {
            o->peak_gbs = atof(val);
        } else if (!strcmp(a, "--softcap")) {
            o->softcap = (float)atof(val);
            if (!(o->softcap > 0.0f)) { fprintf(stderr, "flashc_bench: bad --softcap\n"); return -1; }
        } else if (!strcmp(a, "--json")) {
            o->json_path = val;
        }
    }
    return 0;
}

/* ---- Main -------------------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    bench_opts o;
    if (parse_args(argc, argv, &o)) return 2;

    case_list cases = {NULL, 0, 0};
    if (((o.sets & SET_FA3) && build_fa3(&o, &cases)) || ((o.sets & SET_DECODE) && build_decode(&o, &cases)) ||
        ((o.sets & SET_VARLEN) && build_varlen(&o, &cases)) || ((o.sets & SET_PAGED) && build_paged(&o, &cases))) {
        fprintf(stderr, "flashc_bench: out of host memory\n");
        return 1;
    }
    if (o.list_only) {
        for (int di = 0; di < o.n_dtypes; ++di)
            for (int ci = 0; ci < cases.n; ++ci) {
                char shape[SHAPE_CHARS];
                case_shape(&cases.v[ci], 0, shape, sizeof shape);
                printf("%-7s %-5s %-52s %10.4f GFLOP %9.4f GB K+V\n", cases.v[ci].set, dtype_name(o.dtypes[di]),
                       shape, case_flops(&cases.v[ci]) / 1e9, case_kv_bytes(&cases.v[ci], o.dtypes[di]) / 1e9);
            }
        return 0;
    }

    int n_dev = 0;
    cudaError_t e = cudaGetDeviceCount(&n_dev);
    if (e != cudaSuccess || n_dev == 0) {
        printf("flashc_bench: no CUDA device (%s); nothing to time.\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
        return 0;
    }
    struct cudaDeviceProp prop;
    int dev = 0, l2 = 0, driver = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) {
        printf("flashc_bench: cannot query the CUDA device (%s); nothing to time.\n",
               cudaGetErrorString(cudaGetLastError()));
        return 0;
    }
    cudaDriverGetVersion(&driver);

    bench_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.flush_bytes = (size_t)l2 * L2_FLUSH_FACTOR;
    if (ctx.flush_bytes < MIN_FLUSH_BYTES) ctx.flush_bytes = MIN_FLUSH_BYTES;
    ctx.events = calloc((size_t)2 * o.repeats, sizeof(cudaEvent_t));
    if (!ctx.events) return 1;
    e = cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking);
    for (int i = 0; e == cudaSuccess && i < 2 * o.repeats; ++i) e = cudaEventCreate(&ctx.events[i]);
    if (e == cudaSuccess) e = cudaMalloc(&ctx.flush, ctx.flush_bytes);
    if (e != cudaSuccess) {
        printf("flashc_bench: CUDA setup failed: %s\n", cudaGetErrorString(e));
        return 1;
    }

    FILE *json = NULL;
    if (o.json_path) {
        json = fopen(o.json_path, "w");
        if (!json) { fprintf(stderr, "flashc_bench: cannot write %s: %s\n", o.json_path, strerror(errno)); return 1; }
        fprintf(json, "{\"tool\": \"flashc_bench\", \"flashc_version\": %d, \"gpu\": ", flashc_version());
        json_string(json, prop.name);
        fprintf(json, ", \"cc\": \"%d.%d\", \"sms\": %d, \"l2_bytes\": %d, \"cuda_driver\": %d, "
                      "\"repeats\": %d, \"warmup\": %d, \"softcap\": %g, \"alibi\": %d, \"results\": [",
                prop.major, prop.minor, prop.multiProcessorCount, l2, driver, o.repeats, o.warmup, (double)o.softcap,
                o.alibi);
    }

    printf("flashc %d on %s (sm_%d%d, %d SMs, L2 %d MiB), CUDA driver %d; median of %d after %d warm-up, "
           "L2 flushed (%zu MiB) before each\n",
           flashc_version(), prop.name, prop.major, prop.minor, prop.multiProcessorCount, l2 >> 20, driver,
           o.repeats, o.warmup, ctx.flush_bytes >> 20);
    if (o.softcap > 0.0f || o.alibi)
        printf("every shape with%s%s\n", o.softcap > 0.0f ? " softcap" : "", o.alibi ? " ALiBi slopes [h_q]" : "");
    printf("%-7s %-5s %-5s %-52s %9s %s\n", "set", "dtype", "bknd", "shape", "ms", "rate, % of peak");

    int failures = 0, first = 1, fatal = 0;
    for (int di = 0; di < o.n_dtypes && !fatal; ++di) {
        flashc_dtype dt = o.dtypes[di];
        int eight_bit = dtype_size(dt) == 1;
        for (int ci = 0; ci < cases.n && !fatal; ++ci) {
            bench_result r;
            int vt = o.vt == VT_AUTO ? 0 : o.vt;
            if (vt && !eight_bit) vt = 0; /* transposed V is an 8-bit layout only */
            run_case(&o, &ctx, &cases.v[ci], dt, vt, &r);
            /* Auto: an 8-bit path may want V sequence-innermost; try that layout before giving up. */
            if (o.vt == VT_AUTO && eight_bit && !r.ran && !r.failed && !strncmp(r.message, "not supported", 13)) {
                bench_result r2;
                run_case(&o, &ctx, &cases.v[ci], dt, 1, &r2);
                if (r2.ran || r2.failed) r = r2;
            }
            print_row(&cases.v[ci], dt, &r);
            if (json) { json_result(json, first, &cases.v[ci], dt, &r); first = 0; }
            if (r.failed) {
                ++failures;
                /* A sticky CUDA error (bad address in a kernel) poisons the context: stop here. */
                if (cudaDeviceSynchronize() != cudaSuccess) {
                    printf("flashc_bench: the CUDA context is unusable after this failure; stopping.\n");
                    fatal = 1;
                }
                (void)cudaGetLastError();
            }
        }
    }
    if (json) {
        fprintf(json, "\n]}\n");
        fclose(json);
    }

    for (int i = 0; i < cases.n; ++i) free(cases.v[i].seqlens);
    free(cases.v);
    for (int i = 0; i < 3; ++i) free(ctx.chunks.chunk[i]);
    for (int i = 0; i < 2 * o.repeats; ++i) cudaEventDestroy(ctx.events[i]);
    free(ctx.events);
    cudaFree(ctx.flush);
    cudaStreamDestroy(ctx.stream);
    if (failures) printf("flashc_bench: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
