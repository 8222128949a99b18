/*
 * Fuzzing the public API on host memory: arbitrary bytes become an attention call, and the call
 * must keep the library's promises whatever the arguments.
 *
 *   - every status is a pinned value; a failure leaves a message, a success leaves none;
 *   - flashc_attention_check, _select_backend, _workspace_size and _forward agree on the status;
 *   - a failed call writes nothing (out and lse keep their poison);
 *   - a successful forward writes every element of its sequences' rows of out (finite) and of lse
 *     (not NaN; -inf for a row with no key, +-inf where a legal but absurd softmax_scale puts the
 *     true value beyond float), and nothing else: padding and rows outside the sequences keep the
 *     poison;
 *   - nothing reads or writes outside what the shapes, strides and index arrays describe: every
 *     buffer is allocated to exactly that span (the sanitizer build, scripts/fuzz.sh, traps any
 *     stray access; this build checks guard bytes after each buffer for stray writes);
 *   - every validated problem that meets the GPU alignment rules is planned by both GPU paths for
 *     three synthetic devices (H200, sm_89, sm_80): SUCCESS or NOT_SUPPORTED with a message, a
 *     plan whenever the check passes, a fixed workspace size, and (sanitizer build) no read of
 *     the index arrays.
 *
 * An input is decoded in two steps. First a mostly valid problem (dtype, layouts, lengths,
 * padding, masks, bias, ALiBi, descales, LSE, pages), every choice read from the bytes (zero
 * once they run out, so short inputs give small valid problems). Then up to three mutations
 * overwrite one argument each with a boundary value (shape, stride, ndim, dtype, pointer, flag,
 * scalar, index-array entry). Buffers are allocated last, from the final arguments.
 *
 * Modes: `test_fuzz` runs FLASHC_FUZZ_ITERS (default 20000) random inputs from the test seed;
 * `test_fuzz FILE...` replays inputs (libFuzzer crash files); built with -DFLASHC_LIBFUZZER it is
 * a libFuzzer target (scripts/fuzz.sh). A failing input is printed in hex for replay.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flashc.h"
#include "launch.h"
#include "problem.h"
#include "test_util.h"

/* ---- Budget ------------------------------------------------------------------------------ */

#define FZ_DEFAULT_ITERS 20000
#define FZ_MAX_INPUT_BYTES 256   /* random inputs of the CTest run: 0..this many bytes */
#define FZ_MAX_SPAN_ELEMS (1 << 20) /* a tensor described larger is not allocated (check only) */
#define FZ_MAX_INDEX_ENTRIES (1 << 16)
#define FZ_MAX_WORK 20000000.0   /* rows * heads * keys * d above which forward is not run */
#define FZ_MAX_B 3               /* sequences of the generated problem (mutations may change it) */
#define FZ_MAX_MUTATIONS 3

#if defined(__SANITIZE_ADDRESS__)
#define FZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_ASAN 1
#endif
#endif
#ifdef FZ_ASAN
#define FZ_GUARD_BYTES 0  /* ASan's redzones trap every stray byte */
#else
#define FZ_GUARD_BYTES 64 /* checked after each call: a stray write past a buffer changes them */
#endif
#define FZ_GUARD_BYTE 0xc5

/* ---- Reading choices from the input ------------------------------------------------------- */

typedef struct fz_reader {
    const uint8_t *data;
    size_t size, pos;
} fz_reader;

/* A value in [0, n) from as many bytes as n needs (0 when the input is exhausted or n <= 1). */
static uint32_t take(fz_reader *r, uint32_t n)
{
    if (n <= 1) return 0;
    uint64_t v = 0;
    for (uint64_t range = 1; range < n; range <<= 8) v = (v << 8) | (r->pos < r->size ? r->data[r->pos++] : 0u);
    return (uint32_t)(v % n);
}

/* Boundary values for integer arguments. */
static int64_t take_int(fz_reader *r)
{
    switch (take(r, 16)) {
    case 0: return -1;
    case 1: return 0;
    case 2: return 1;
    case 3: return 2;
    case 4: return 3;
    case 5: return 17;
    case 6: return -2;
    case 7: return INT32_MAX;
    case 8: return INT32_MIN;
    case 9: return INT64_MAX;
    case 10: return INT64_MIN;
    case 11: return (int64_t)1 << 31;
    case 12: return (int64_t)1 << 32;
    case 13: return (int64_t)INT32_MAX / 2 + 1;
    case 14: return (int64_t)take(r, 1u << 16) - (1 << 15);
    default: return (int64_t)(((uint64_t)take(r, UINT32_MAX) << 32) | take(r, UINT32_MAX));
    }
}

static float take_float(fz_reader *r)
{
    switch (take(r, 9)) {
    case 0: return 0.0f;
    case 1: return -1.0f;
    case 2: return NAN;
    case 3: return INFINITY;
    case 4: return -INFINITY;
    case 5: return 1e-30f;
    case 6: return 1e30f;
    case 7: return FLT_MAX;
    default: return 0.25f * (float)(1 + take(r, 64));
    }
}

/* ---- The case ------------------------------------------------------------------------------ */

enum { FZ_Q, FZ_K, FZ_V, FZ_OUT, FZ_LSE, FZ_BIAS, FZ_ALIBI, FZ_QD, FZ_KD, FZ_VD, FZ_NUM_TENSORS };
enum { FZ_CU_Q, FZ_CU_K, FZ_USED, FZ_PAGES, FZ_NUM_INDEX };
static const char *const fz_tensor_name[FZ_NUM_TENSORS] = {"q", "k", "v", "out", "lse",
                                                           "bias", "alibi_slopes", "q_descale",
                                                           "k_descale", "v_descale"};

#define FZ_INDEX_CAP 64 /* intended entries per index array; more (after mutations) come from the input */
/* A non-NULL placeholder for "present": replaced by the allocation before any call. */
#define FZ_PRESENT ((void *)&fz_present_marker)
static const char fz_present_marker;

typedef struct fz_case {
    flashc_attention_params p;
    int32_t index[FZ_NUM_INDEX][FZ_INDEX_CAP]; /* intended contents of the index arrays */
    int index_present[FZ_NUM_INDEX];
    int misalign[FZ_NUM_TENSORS];              /* data one byte past the allocation's start */
} fz_case;

static flashc_tensor *fz_tensor(flashc_attention_params *p, int i)
{
    flashc_tensor *const t[FZ_NUM_TENSORS] = {&p->q, &p->k, &p->v, &p->out, &p->lse,
                                              &p->bias, &p->alibi_slopes, &p->q_descale,
                                              &p->k_descale, &p->v_descale};
    return t[i];
}

/* Padding choices: any (0..2 elements, mostly misaligned for the GPU paths) or 16-byte multiples,
   so that the GPU planners below see problems that pass their alignment rules. */
static int g_aligned_padding;

/* Dense row-major strides over `shape`, with padding after each outer row. */
static void set_dense(fz_reader *r, flashc_tensor *t, flashc_dtype dt, int nd, const int64_t *shape)
{
    const int64_t pad16 = 16 / (int64_t)(tu_dtype_size(dt) ? tu_dtype_size(dt) : 1);
    t->data = FZ_PRESENT;
    t->dtype = dt;
    t->ndim = nd;
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; --i) {
        t->shape[i] = shape[i];
        t->stride[i] = s;
        s = s * (shape[i] > 0 ? shape[i] : 1) + (g_aligned_padding ? pad16 : 1) * (int64_t)take(r, 3);
    }
}

/* A broadcastable tensor: per dimension the full extent, extent 1, or the full extent at stride 0. */
static void set_broadcast(fz_reader *r, flashc_tensor *t, flashc_dtype dt, int nd, const int64_t *full)
{
    int64_t shape[FLASHC_MAX_DIMS] = {0};
    int zero[FLASHC_MAX_DIMS] = {0};
    for (int i = 0; i < nd; ++i) {
        const uint32_t how = take(r, 3);
        shape[i] = how == 1 ? 1 : full[i];
        zero[i] = how == 2;
    }
    set_dense(r, t, dt, nd, shape);
    for (int i = 0; i < nd; ++i)
        if (zero[i]) t->stride[i] = 0;
}

/* Lengths of b sequences in [0, max_len] into cu[0..b]; returns the longest. */
static int32_t set_cu(fz_reader *r, int32_t *cu, int b, int32_t max_len)
{
    int32_t longest = 0;
    cu[0] = 0;
    for (int i = 0; i < b; ++i) {
        const int32_t len = (int32_t)take(r, (uint32_t)max_len + 1);
        cu[i + 1] = cu[i] + len;
        if (len > longest) longest = len;
    }
    return longest;
}

/* Step one: a mostly valid problem. */
static void build_case(fz_reader *r, fz_case *c)
{
    static const flashc_dtype in_types[4] = {FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16, FLASHC_DTYPE_FP8_E4M3,
                                             FLASHC_DTYPE_INT8};
    static const flashc_dtype out_types[3] = {FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16, FLASHC_DTYPE_F32};
    static const flashc_dtype bias_types[3] = {FLASHC_DTYPE_F32, FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16};
    static const int32_t head_dims[7] = {32, 64, 96, 128, 192, 256, 48 /* valid, not supported */};
    static const int32_t page_sizes[6] = {1, 2, 3, 5, 16, 64};
    flashc_attention_params *p = &c->p;
    memset(c, 0, sizeof *c);
    flashc_attention_params_init(p);

    static const int32_t hopper_head_dims[3] = {64, 128, 256};
    /* one problem in eight has the Hopper path's shape (16-bit, head dim 64 / 128 / 256, batched,
       aligned, no extras), which independent choices would reach once in hundreds */
    const int hopper = take(r, 8) == 0;
    const flashc_dtype in = in_types[take(r, hopper ? 2 : 4)], out = hopper ? in : out_types[take(r, 3)];
    const int b = 1 + (int)take(r, FZ_MAX_B), h_kv = 1 + (int)take(r, 2), h_q = h_kv * (1 + (int)take(r, 3));
    const int32_t d = hopper ? hopper_head_dims[take(r, 3)] : head_dims[take(r, 7)];
    const int q_varlen = hopper ? 0 : (int)take(r, 2), kv_layout = hopper ? 0 : (int)take(r, 3);
    g_aligned_padding = hopper || take(r, 2);
    const int vt = in == FLASHC_DTYPE_FP8_E4M3 || in == FLASHC_DTYPE_INT8 ? (int)take(r, 2) : 0;
    p->backend = take(r, 8) == 0 ? (flashc_backend)take(r, 4) : (take(r, 2) ? FLASHC_BACKEND_CPU : FLASHC_BACKEND_AUTO);

    /* q, out, lse */
    int32_t s_q;
    if (q_varlen) {
        c->index_present[FZ_CU_Q] = 1;
        s_q = set_cu(r, c->index[FZ_CU_Q], b, 5) + (int32_t)take(r, 2);
        const int32_t total_q = c->index[FZ_CU_Q][b] + (int32_t)take(r, 3);
        p->batch = b;
        p->max_seqlen_q = s_q;
        const int64_t qs[3] = {total_q, h_q, d}, ls[2] = {h_q, total_q};
        set_dense(r, &p->q, in, 3, qs);
        set_dense(r, &p->out, out, 3, qs);
        if (take(r, 2)) set_dense(r, &p->lse, FLASHC_DTYPE_F32, 2, ls);
    } else {
        s_q = (int32_t)take(r, 6);
        if (take(r, 4) == 0) p->batch = b;
        const int64_t qs[4] = {b, s_q, h_q, d}, ls[3] = {b, h_q, s_q};
        set_dense(r, &p->q, in, 4, qs);
        set_dense(r, &p->out, out, 4, qs);
        if (take(r, 2)) set_dense(r, &p->lse, FLASHC_DTYPE_F32, 3, ls);
    }

    /* k, v and their index arrays */
    int32_t s_k;
    if (kv_layout == 0) {
        s_k = (int32_t)take(r, 10);
        const int64_t ks[4] = {b, s_k, h_kv, d}, vs[4] = {b, h_kv, d, s_k};
        set_dense(r, &p->k, in, 4, ks);
        set_dense(r, &p->v, in, 4, vt ? vs : ks);
        if (!hopper && take(r, 3) == 0) {
            c->index_present[FZ_USED] = 1;
            for (int i = 0; i < b; ++i) c->index[FZ_USED][i] = (int32_t)take(r, (uint32_t)s_k + 1);
        }
    } else if (kv_layout == 1) {
        c->index_present[FZ_CU_K] = 1;
        s_k = set_cu(r, c->index[FZ_CU_K], b, 9) + (int32_t)take(r, 2);
        const int32_t total_k = c->index[FZ_CU_K][b] + (int32_t)take(r, 3);
        p->max_seqlen_k = s_k;
        const int64_t ks[3] = {total_k, h_kv, d}, vs[3] = {h_kv, d, total_k};
        set_dense(r, &p->k, in, 3, ks);
        set_dense(r, &p->v, in, 3, vt ? vs : ks);
        if (take(r, 3) == 0) {
            c->index_present[FZ_USED] = 1;
            for (int i = 0; i < b; ++i) {
                const int32_t len = c->index[FZ_CU_K][i + 1] - c->index[FZ_CU_K][i];
                c->index[FZ_USED][i] = (int32_t)take(r, (uint32_t)len + 1);
            }
        }
    } else {
        const int32_t ps = page_sizes[take(r, 6)];
        int32_t longest = 0, most_pages = 1;
        c->index_present[FZ_USED] = c->index_present[FZ_PAGES] = 1;
        for (int i = 0; i < b; ++i) {
            const int32_t used = (int32_t)take(r, 12);
            c->index[FZ_USED][i] = used;
            if (used > longest) longest = used;
            if ((used + ps - 1) / ps > most_pages) most_pages = (used + ps - 1) / ps;
        }
        const int32_t max_pages = most_pages + (int32_t)take(r, 2), num_pages = 1 + (int32_t)take(r, 6);
        p->max_pages_per_seq = max_pages;
        p->page_table_stride = max_pages + (int64_t)take(r, 2);
        for (int64_t i = 0; i < (b - 1) * p->page_table_stride + max_pages && i < FZ_INDEX_CAP; ++i)
            c->index[FZ_PAGES][i] = (int32_t)take(r, (uint32_t)num_pages);
        s_k = longest + (int32_t)take(r, 2);
        p->max_seqlen_k = s_k;
        const int64_t ks[4] = {num_pages, ps, h_kv, d}, vs[4] = {num_pages, h_kv, d, ps};
        set_dense(r, &p->k, in, 4, ks);
        set_dense(r, &p->v, in, 4, vt ? vs : ks);
    }
    p->v_transposed = vt;

    /* masks and score transforms; a third of the problems have none (the Hopper path's share) */
    p->causal = (int32_t)take(r, 2);
    const int plain = hopper || take(r, 3) == 0;
    if (plain) {
        if (p->causal) p->window_right = 0;
        if (take(r, 2)) p->softmax_scale = 0.01f * (float)(1 + take(r, 100));
        return;
    }
    p->window_left = (int32_t)take(r, 6) - 1;
    p->window_right = p->causal ? (int32_t)take(r, 2) - 1 : (int32_t)take(r, 6) - 1;
    if (take(r, 3) == 0) p->softcap = 0.5f * (float)(1 + take(r, 60));
    if (take(r, 3) == 0) p->softmax_scale = 0.01f * (float)(1 + take(r, 100));

    /* bias, ALiBi, descales */
    if (take(r, 3) == 0) {
        const int64_t full[4] = {b, h_q, s_q, s_k};
        set_broadcast(r, &p->bias, bias_types[take(r, 3)], 4, full);
    }
    switch (take(r, 4)) {
    case 1: {
        const int64_t full[1] = {h_q};
        set_broadcast(r, &p->alibi_slopes, FLASHC_DTYPE_F32, 1, full);
        break;
    }
    case 2: {
        const int64_t full[2] = {b, h_q};
        set_broadcast(r, &p->alibi_slopes, FLASHC_DTYPE_F32, 2, full);
        break;
    }
    default: break;
    }
    const int is8 = in == FLASHC_DTYPE_FP8_E4M3 || in == FLASHC_DTYPE_INT8;
    for (int i = FZ_QD; i <= FZ_VD; ++i)
        if (take(r, is8 ? 3 : 12) == 0) {
            const int64_t full[2] = {b, h_kv};
            set_broadcast(r, fz_tensor(p, i), FLASHC_DTYPE_F32, 2, full);
        }
}

/* Step two: one argument overwritten with a boundary value. */
static void mutate(fz_reader *r, fz_case *c)
{
    flashc_attention_params *p = &c->p;
    switch (take(r, 6)) {
    case 0:
    case 1: { /* a tensor */
        const int ti = (int)take(r, FZ_NUM_TENSORS);
        flashc_tensor *t = fz_tensor(p, ti);
        const int dim = (int)take(r, FLASHC_MAX_DIMS);
        switch (take(r, 7)) {
        case 0: t->ndim = (int32_t)take_int(r); break;
        case 1: t->shape[dim] = take_int(r); break;
        case 2: t->stride[dim] = take_int(r); break;
        case 3: t->dtype = (flashc_dtype)take_int(r); break;
        case 4: t->data = NULL; break;
        case 5: t->data = FZ_PRESENT; break; /* an absent optional tensor given memory */
        default: c->misalign[ti] = 1; break;
        }
        break;
    }
    case 2: { /* an integer argument */
        const int64_t v = take_int(r);
        switch (take(r, 9)) {
        case 0: p->batch = (int32_t)v; break;
        case 1: p->max_seqlen_q = (int32_t)v; break;
        case 2: p->max_seqlen_k = (int32_t)v; break;
        case 3: p->max_pages_per_seq = (int32_t)v; break;
        case 4: p->page_table_stride = v; break;
        case 5: p->causal = (int32_t)v; break;
        case 6: p->v_transposed = (int32_t)v; break;
        case 7: p->window_left = (int32_t)v; break;
        default: p->window_right = (int32_t)v; break;
        }
        break;
    }
    case 3: /* a float or the backend */
        switch (take(r, 3)) {
        case 0: p->softcap = take_float(r); break;
        case 1: p->softmax_scale = take_float(r); break;
        default: p->backend = (flashc_backend)take_int(r); break;
        }
        break;
    case 4: /* an index array given or taken away */
        c->index_present[take(r, FZ_NUM_INDEX)] ^= 1;
        break;
    default: /* an index-array entry */
        c->index[take(r, FZ_NUM_INDEX)][take(r, FZ_INDEX_CAP)] = (int32_t)take_int(r);
        break;
    }
}

/* ---- Memory: exactly what the final arguments describe ------------------------------------ */

typedef struct fz_buf {
    uint8_t *alloc;   /* misalignment byte (if any), the span, the guard */
    uint8_t *data;    /* what the call gets */
    size_t bytes;     /* the described span */
    size_t total;     /* bytes of alloc */
} fz_buf;

typedef struct fz_mem {
    fz_buf t[FZ_NUM_TENSORS], idx[FZ_NUM_INDEX];
    uint8_t *snapshot[2]; /* out and lse as poisoned, to compare after a failed call */
    int unbacked;         /* some tensor is described larger than we allocate: no forward */
    int skip;             /* an index array is too large to allocate: no call at all */
} fz_mem;

static size_t dtype_bytes_or_1(flashc_dtype dt)
{
    const size_t s = tu_dtype_size(dt);
    return s ? s : 1;
}

/* Elements from the first to one past the last the view reaches; -1 if over FZ_MAX_SPAN_ELEMS.
   Views validation must reject (bad ndim, negative extents or strides) get one element. */
static int64_t view_span(const flashc_tensor *t)
{
    if (t->ndim < 0 || t->ndim > FLASHC_MAX_DIMS) return 1;
    int64_t last = 0;
    for (int i = 0; i < t->ndim; ++i) {
        if (t->shape[i] < 0 || t->stride[i] < 0) return 1;
        if (t->shape[i] == 0) return 0;
    }
    for (int i = 0; i < t->ndim; ++i) {
        const int64_t n = t->shape[i] - 1, s = t->stride[i];
        if (n > 0 && s > 0 && (n > FZ_MAX_SPAN_ELEMS / s || last + n * s > FZ_MAX_SPAN_ELEMS)) return -1;
        last += n * s;
    }
    return last + 1;
}

static int buf_alloc(fz_buf *b, size_t bytes, int misalign)
{
    b->bytes = bytes;
    b->total = (misalign ? 1 : 0) + bytes + FZ_GUARD_BYTES;
    b->alloc = malloc(b->total ? b->total : 1);
    if (!b->alloc) return -1;
    b->data = b->alloc + (misalign ? 1 : 0);
    memset(b->alloc, FZ_GUARD_BYTE, b->total);
    return 0;
}

static int guard_intact(const fz_buf *b)
{
    if (!b->alloc) return 1;
    const uint8_t *g = b->data + b->bytes, *end = b->alloc + b->total;
    for (; g < end; ++g)
        if (*g != FZ_GUARD_BYTE) return 0;
    return 1;
}

/* Sequences the index arrays serve, as validation will count them. */
static int64_t index_batch(const fz_case *c)
{
    const flashc_attention_params *p = &c->p;
    if (c->index_present[FZ_CU_Q] || p->q.ndim < 1 || p->q.ndim > FLASHC_MAX_DIMS) return p->batch;
    return p->q.shape[0];
}

static int64_t index_entries(const flashc_attention_params *p, int which, int64_t nb)
{
    if (nb < 1) return 1;
    if (nb > FZ_MAX_INDEX_ENTRIES) return -1;
    switch (which) {
    case FZ_CU_Q:
    case FZ_CU_K: return nb + 1;
    case FZ_USED: return nb;
    default: /* rows of page_table_stride entries; one sequence reads only its own row */
        if (p->max_pages_per_seq < 1 || p->page_table_stride < p->max_pages_per_seq) return 1;
        if (nb > 1 && p->page_table_stride > (FZ_MAX_INDEX_ENTRIES - p->max_pages_per_seq) / (nb - 1)) return -1;
        return (nb - 1) * p->page_table_stride + p->max_pages_per_seq;
    }
}

/* Returns -1 on host allocation failure. */
static int mem_build(fz_reader *r, fz_case *c, fz_mem *m, tu_rng *rng)
{
    flashc_attention_params *p = &c->p;
    memset(m, 0, sizeof *m);
    for (int i = 0; i < FZ_NUM_TENSORS; ++i) {
        flashc_tensor *t = fz_tensor(p, i);
        if (!t->data) continue;
        int64_t span = view_span(t);
        if (span < 0) {
            m->unbacked = 1;
            span = 1;
        }
        const size_t elem = dtype_bytes_or_1(t->dtype);
        if (buf_alloc(&m->t[i], (size_t)span * elem, c->misalign[i]) != 0) return -1;
        t->data = m->t[i].data;
        if (span == 0 || c->misalign[i] || tu_dtype_size(t->dtype) == 0) continue;
        /* Values keep every output finite: |q|,|k|,|v| <= 2 (int8 any), descales and slopes small. */
        switch (i) {
        case FZ_OUT:
        case FZ_LSE: tu_poison(t->data, t->dtype, span); break;
        case FZ_BIAS: tu_fill_uniform(rng, t->data, t->dtype, span, -3.0, 3.0); break;
        case FZ_ALIBI: tu_fill_uniform(rng, t->data, t->dtype, span, 0.0, 1.0); break;
        case FZ_QD:
        case FZ_KD:
        case FZ_VD: tu_fill_uniform(rng, t->data, t->dtype, span, 0.05, 2.0); break;
        default:
            tu_fill_uniform(rng, t->data, t->dtype, span, t->dtype == FLASHC_DTYPE_INT8 ? -127.0 : -2.0,
                            t->dtype == FLASHC_DTYPE_INT8 ? 127.0 : 2.0);
            break;
        }
    }
    const int64_t nb = index_batch(c);
    const int32_t **slot[FZ_NUM_INDEX] = {&p->cu_seqlens_q, &p->cu_seqlens_k, &p->seqused_k, &p->page_table};
    for (int i = 0; i < FZ_NUM_INDEX; ++i) {
        if (!c->index_present[i]) {
            *slot[i] = NULL;
            continue;
        }
        const int64_t n = index_entries(p, i, nb);
        if (n < 0 || n > FZ_MAX_INDEX_ENTRIES) {
            m->skip = 1;
            *slot[i] = NULL;
            continue;
        }
        if (buf_alloc(&m->idx[i], (size_t)n * sizeof(int32_t), 0) != 0) return -1;
        int32_t *a = (int32_t *)m->idx[i].data;
        for (int64_t j = 0; j < n; ++j)
            a[j] = j < FZ_INDEX_CAP ? c->index[i][j] : (int32_t)take(r, 64);
        *slot[i] = a;
    }
    for (int i = 0; i < 2; ++i) {
        const fz_buf *b = &m->t[i == 0 ? FZ_OUT : FZ_LSE];
        if (!b->alloc) continue;
        m->snapshot[i] = malloc(b->total ? b->total : 1);
        if (!m->snapshot[i]) return -1;
        memcpy(m->snapshot[i], b->alloc, b->total);
    }
    return 0;
}

static void mem_free(fz_mem *m)
{
    for (int i = 0; i < FZ_NUM_TENSORS; ++i) free(m->t[i].alloc);
    for (int i = 0; i < FZ_NUM_INDEX; ++i) free(m->idx[i].alloc);
    free(m->snapshot[0]);
    free(m->snapshot[1]);
}

/* ---- The checks --------------------------------------------------------------------------- */

static int valid_status(flashc_status s) { return s >= FLASHC_STATUS_SUCCESS && s <= FLASHC_STATUS_INTERNAL_ERROR; }

/* The status and the message agree. */
static void check_status(flashc_status st, const char *call)
{
    const char *msg = flashc_last_error();
    TEST_CHECK(valid_status(st), "%s returned %d, not a pinned status", call, (int)st);
    if (st == FLASHC_STATUS_SUCCESS)
        TEST_CHECK(msg[0] == '\0', "%s succeeded but left the message \"%s\"", call, msg);
    else
        TEST_CHECK(msg[0] != '\0', "%s returned %s with no message", call, flashc_status_string(st));
}

static void check_untouched(const fz_mem *m, const char *after)
{
    for (int i = 0; i < 2; ++i) {
        const fz_buf *b = &m->t[i == 0 ? FZ_OUT : FZ_LSE];
        if (b->alloc)
            TEST_CHECK(memcmp(m->snapshot[i], b->alloc, b->total) == 0, "%s: %s was written", after,
                       i == 0 ? "out" : "lse");
    }
}

static void check_guards(const fz_mem *m, const char *after)
{
    for (int i = 0; i < FZ_NUM_TENSORS; ++i)
        TEST_CHECK(guard_intact(&m->t[i]), "%s: a byte past %s's span was written", after, fz_tensor_name[i]);
}

/* After a successful forward: the sequences' rows are written and finite, nothing else is. */
static void check_written(const flashc_problem *pr, const fz_mem *m)
{
    const fz_buf *ob = &m->t[FZ_OUT], *lb = &m->t[FZ_LSE];
    const size_t oe = tu_dtype_size(pr->out_dtype), o_elems = ob->bytes / oe;
    const size_t l_elems = pr->lse ? lb->bytes / sizeof(float) : 0;
    uint8_t *o_mark = calloc(o_elems + 1, 1), *l_mark = calloc(l_elems + 1, 1);
    if (!o_mark || !l_mark) {
        free(o_mark);
        free(l_mark);
        TEST_CHECK(0, "out of host memory");
        return;
    }
    int64_t bad_out = 0, bad_lse = 0;
    for (int32_t bi = 0; bi < pr->b; ++bi) {
        const int32_t sq = flashc_seqlen_q(pr, bi);
        const int64_t row0 = pr->q_varlen ? pr->cu_seqlens_q[bi] : 0;
        for (int32_t i = 0; i < sq; ++i)
            for (int32_t h = 0; h < pr->h_q; ++h) {
                const int64_t o = bi * pr->o_stride[0] + (row0 + i) * pr->o_stride[1] + h * pr->o_stride[2];
                for (int32_t x = 0; x < pr->d; ++x) {
                    o_mark[o + x] = 1;
                    if (!isfinite(tu_decode(pr->out_dtype, pr->o, o + x))) ++bad_out;
                }
                if (pr->lse) {
                    const int64_t l = bi * pr->lse_stride[0] + h * pr->lse_stride[1] + row0 + i;
                    const float v = pr->lse[l];
                    l_mark[l] = 1;
                    if (isnan(v)) ++bad_lse;
                }
            }
    }
    TEST_CHECK(bad_out == 0, "forward: %lld elements of out are not finite", (long long)bad_out);
    TEST_CHECK(bad_lse == 0, "forward: %lld elements of lse are NaN", (long long)bad_lse);
    int64_t stray_out = 0, stray_lse = 0;
    for (size_t i = 0; i < o_elems; ++i)
        if (!o_mark[i] && !tu_is_poison(pr->out_dtype, pr->o, (int64_t)i)) ++stray_out;
    for (size_t i = 0; i < l_elems; ++i)
        if (!l_mark[i] && !tu_is_poison(FLASHC_DTYPE_F32, pr->lse, (int64_t)i)) ++stray_lse;
    TEST_CHECK(stray_out == 0, "forward: %lld elements of out outside the sequences' rows were written",
               (long long)stray_out);
    TEST_CHECK(stray_lse == 0, "forward: %lld elements of lse outside the sequences' rows were written",
               (long long)stray_lse);
    free(o_mark);
    free(l_mark);
}

static double problem_work(const flashc_problem *pr)
{
    return (double)pr->total_q * pr->h_q * ((double)pr->s_k + 1.0) * pr->d + (double)pr->b * pr->h_q;
}

/* The arguments of a case, for replaying a failure (FLASHC_FUZZ_VERBOSE=1 prints every case). */
static void describe_case(const fz_case *c)
{
    const flashc_attention_params *p = &c->p;
    printf("backend %d batch %d max_seqlen_q %d max_seqlen_k %d pages %d stride %lld causal %d window %d %d "
           "softcap %g scale %g v_transposed %d\n", (int)p->backend, (int)p->batch, (int)p->max_seqlen_q,
           (int)p->max_seqlen_k, (int)p->max_pages_per_seq, (long long)p->page_table_stride, (int)p->causal,
           (int)p->window_left, (int)p->window_right, (double)p->softcap, (double)p->softmax_scale,
           (int)p->v_transposed);
    for (int i = 0; i < FZ_NUM_TENSORS; ++i) {
        const flashc_tensor *t = fz_tensor((flashc_attention_params *)p, i);
        if (!t->data) continue;
        printf("  %s: dtype %d ndim %d%s shape", fz_tensor_name[i], (int)t->dtype, (int)t->ndim,
               c->misalign[i] ? " misaligned" : "");
        for (int k = 0; k < FLASHC_MAX_DIMS; ++k) printf(" %lld", (long long)t->shape[k]);
        printf(" stride");
        for (int k = 0; k < FLASHC_MAX_DIMS; ++k) printf(" %lld", (long long)t->stride[k]);
        printf("\n");
    }
    static const char *const index_name[FZ_NUM_INDEX] = {"cu_seqlens_q", "cu_seqlens_k", "seqused_k", "page_table"};
    for (int i = 0; i < FZ_NUM_INDEX; ++i) {
        if (!c->index_present[i]) continue;
        printf("  %s:", index_name[i]);
        for (int k = 0; k < 8; ++k) printf(" %d", (int)c->index[i][k]);
        printf(" ...\n");
    }
    fflush(stdout);
}

/* ---- GPU planning on synthetic devices ----------------------------------------------------- */

/* The planners are host logic (src/launch.h: no CUDA call, no data read), so any validated problem
   can be planned for GPUs this machine lacks, whatever its size: the H200, an sm_89 and an sm_80
   GPU (test_routes' devices). */
#define FZ_NUM_DEVICES 3
static const flashc_device_info k_fz_devices[FZ_NUM_DEVICES] = {
    {0, 9, 0, 132, 232448, 52428800, 4.8e12}, {0, 8, 9, 142, 101376, 100663296, 0.0},
    {0, 8, 0, 108, 166912, 41943040, 1.555e12}};
static long g_planned[2];

static void check_path(flashc_status st, const char *path, const char *dev)
{
    const char *msg = flashc_last_error();
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS || st == FLASHC_STATUS_NOT_SUPPORTED,
               "%s check on %s returned %s (%s): the path's check answers SUCCESS or NOT_SUPPORTED", path, dev,
               flashc_status_string(st), msg);
    if (st != FLASHC_STATUS_SUCCESS)
        TEST_CHECK(msg[0] != '\0', "%s check on %s returned %s with no message", path, dev,
                   flashc_status_string(st));
}

/* pr is validated for host memory. Its index arrays are swapped for a one-byte buffer that the
   sanitizer build traps on any read: a planner must not read them (on a GPU they are device memory). */
static void plan_everywhere(const flashc_problem *pr)
{
    flashc_problem g = *pr;
    if (flashc_validate_gpu(&g) != FLASHC_STATUS_SUCCESS) return;
    uint8_t *trap = malloc(1);
    if (!trap) {
        TEST_CHECK(0, "out of host memory");
        return;
    }
    const int32_t *trap32 = (const int32_t *)(void *)trap;
    if (g.cu_seqlens_q) g.cu_seqlens_q = trap32;
    if (g.cu_seqlens_k) g.cu_seqlens_k = trap32;
    if (g.seqused_k) g.seqused_k = trap32;
    if (g.page_table) g.page_table = trap32;
    for (int di = 0; di < FZ_NUM_DEVICES; ++di) {
        const flashc_device_info *dev = &k_fz_devices[di];
        char name[16];
        snprintf(name, sizeof name, "sm_%d%d", dev->cc_major, dev->cc_minor);
        const flashc_status st = flashc_sm80_check(&g, dev);
        check_path(st, "sm80", name);
        /* the plan does not repeat every refusal of the check (grid limits), so only: a pass has a plan */
        const int variant = flashc_sm80_plan_variant(&g, dev);
        TEST_CHECK(st != FLASHC_STATUS_SUCCESS || variant >= 0, "sm80 on %s: check %s but no plan", name,
                   flashc_status_string(st));
        if (st == FLASHC_STATUS_SUCCESS) {
            ++g_planned[0];
            const size_t ws = flashc_sm80_workspace_size(&g, dev);
            TEST_CHECK(ws == flashc_sm80_workspace_size(&g, dev), "sm80 on %s: the workspace size changes", name);
        }
        if (dev->cc_major == 9) {
            const flashc_status st90 = flashc_sm90_check(&g, dev);
            check_path(st90, "sm90", name);
            if (st90 == FLASHC_STATUS_SUCCESS) {
                ++g_planned[1];
                const size_t ws = flashc_sm90_workspace_size(&g, dev);
                TEST_CHECK(ws == flashc_sm90_workspace_size(&g, dev), "sm90 on %s: the workspace size changes", name);
                /* V^T's keys are its TMA maps' innermost axis: a packed sequence starting off 16 bytes
                   faults the copy (illegal instruction), and the starts are device memory */
                TEST_CHECK(!(g.v_transposed && g.kv_layout == FLASHC_KV_VARLEN),
                           "sm90 on %s took V^T with packed keys (its TMA copy faults off 16 bytes)", name);
            }
        }
    }
    free(trap);
}

/* What the inputs reached, printed at the end: a fuzzer that never gets past validation, or never
   fails it, tests little. */
static long g_status_count[FLASHC_STATUS_INTERNAL_ERROR + 1], g_forward_ok, g_skipped;

/* One input. Returns how many checks failed in it. */
static int fuzz_one(const uint8_t *data, size_t size)
{
    const int failures_before = tu_failures();
    fz_reader r = {data, size, 0};
    fz_case c;
    build_case(&r, &c);
    const uint32_t n_mut = take(&r, 2 * (FZ_MAX_MUTATIONS + 1));
    for (uint32_t i = 0; i < n_mut && i < FZ_MAX_MUTATIONS; ++i) mutate(&r, &c);

    uint64_t h = 1469598103934665603ull; /* FNV-1a of the input seeds the values */
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    tu_rng rng;
    tu_rng_init(&rng, h);
    fz_mem m;
    if (mem_build(&r, &c, &m, &rng) != 0) {
        mem_free(&m);
        TEST_CHECK(0, "out of host memory");
        return tu_failures() - failures_before;
    }
    if (m.skip) {
        ++g_skipped;
        mem_free(&m);
        return tu_failures() - failures_before;
    }

    if (tu_env_int("FLASHC_FUZZ_VERBOSE", 0)) describe_case(&c);
    flashc_attention_params *p = &c.p;
    const flashc_status st = flashc_attention_check(p);
    check_status(st, "flashc_attention_check");
    if (valid_status(st)) ++g_status_count[st];
    flashc_backend chosen = (flashc_backend)-1;
    const flashc_status st_sel = flashc_attention_select_backend(p, &chosen);
    check_status(st_sel, "flashc_attention_select_backend");
    size_t ws = 1;
    const flashc_status st_ws = flashc_attention_workspace_size(p, &ws);
    check_status(st_ws, "flashc_attention_workspace_size");
    TEST_CHECK(st_sel == st && st_ws == st, "check %s, select_backend %s, workspace_size %s disagree",
               flashc_status_string(st), flashc_status_string(st_sel), flashc_status_string(st_ws));
    check_untouched(&m, "the queries");
    const int cpu = st == FLASHC_STATUS_SUCCESS && chosen == FLASHC_BACKEND_CPU;
    if (st == FLASHC_STATUS_SUCCESS) {
        TEST_CHECK(p->backend != FLASHC_BACKEND_CPU || chosen == FLASHC_BACKEND_CPU,
                   "backend CPU asked, %d chosen", (int)chosen);
        if (cpu) TEST_CHECK(ws == 0, "the CPU backend asks for %zu bytes of workspace", ws);
    }

    /* Forward on host memory: where the CPU backend runs it, and where every call must fail anyway. */
    flashc_problem pr;
    memset(&pr, 0, sizeof pr);
    const int valid = flashc_validate(p, &pr) == FLASHC_STATUS_SUCCESS;
    if (valid) plan_everywhere(&pr);
    const int run = !m.unbacked && (st != FLASHC_STATUS_SUCCESS || (cpu && valid && problem_work(&pr) <= FZ_MAX_WORK));
    if (run) {
        const flashc_status st_fwd = flashc_attention_forward(p, NULL, 0, NULL);
        check_status(st_fwd, "flashc_attention_forward");
        TEST_CHECK(st_fwd == st || st_fwd == FLASHC_STATUS_OUT_OF_MEMORY, "check %s but forward %s (%s)",
                   flashc_status_string(st), flashc_status_string(st_fwd), flashc_last_error());
        check_guards(&m, "forward");
        if (st_fwd != FLASHC_STATUS_SUCCESS)
            check_untouched(&m, "a failed forward");
        else {
            ++g_forward_ok;
            check_written(&pr, &m);
        }
    }
    mem_free(&m);
    return tu_failures() - failures_before;
}

/* ---- Drivers ------------------------------------------------------------------------------- */

static void print_input(const uint8_t *data, size_t size)
{
    printf("input (%zu bytes): ", size);
    for (size_t i = 0; i < size; ++i) printf("%02x", data[i]);
    printf("\n");
}

#ifdef FLASHC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_one(data, size) != 0) {
        print_input(data, size);
        abort(); /* libFuzzer keeps the input as a crash file */
    }
    return 0;
}
#else
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        TEST_CHECK(0, "cannot open %s", path);
        return 1;
    }
    uint8_t buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const int failed = fuzz_one(buf, n);
    if (failed) print_input(buf, n);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 1; i < argc; ++i) replay_file(argv[i]);
        return tu_summary();
    }
    const long iters = tu_env_int("FLASHC_FUZZ_ITERS", FZ_DEFAULT_ITERS);
    tu_rng rng;
    tu_rng_init(&rng, tu_seed());
    uint8_t buf[FZ_MAX_INPUT_BYTES];
    long failed_inputs = 0;
    for (long it = 0; it < iters; ++it) {
        const size_t n = (size_t)tu_rng_int(&rng, 0, FZ_MAX_INPUT_BYTES);
        for (size_t i = 0; i < n; ++i) buf[i] = (uint8_t)tu_rng_u64(&rng);
        if (fuzz_one(buf, n) != 0) {
            printf("iteration %ld failed; ", it);
            print_input(buf, n);
            if (++failed_inputs >= 5) break; /* enough to act on */
        }
    }
    printf("%ld inputs: %ld not called (index arrays too large), %ld forward runs on the CPU backend, %ld sm80 and %ld sm90 "
           "plans; check:", iters, g_skipped, g_forward_ok, g_planned[0], g_planned[1]);
    for (int s = 0; s <= FLASHC_STATUS_INTERNAL_ERROR; ++s)
        if (g_status_count[s]) printf(" %s %ld", flashc_status_string((flashc_status)s) + 14, g_status_count[s]);
    printf("\n");
    return tu_summary();
}
#endif
