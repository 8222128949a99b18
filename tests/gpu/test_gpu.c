/*
 * test_gpu — the GPU test suite. Every case builds fresh random host inputs, runs the CPU
 * reference (flashc_attention_forward, backend CPU, f32 output, fp64 inside) as the oracle, then
 * runs device copies through each GPU backend (SM80, SM90, AUTO) into poisoned outputs and checks
 * every element (unwritten = NaN = failure; rows outside every sequence must stay poison, and so
 * must the padding of padded layouts).
 *
 * A backend answering NOT_SUPPORTED is "skipped" for that (case, backend) and tallied per
 * backend; AUTO answering NOT_SUPPORTED for a 16-bit case (inside the support matrix) fails.
 *
 * Options: --quick (subset), --backend sm80|sm90|auto, --filter SUBSTR, --unit K (one section group
 * of UNITS; --units prints their number); seed from FLASHC_TEST_SEED.
 * Without a CUDA device: exit 77 after "0 passed, 0 failed, 1 skipped".
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "flashc.h"
#include "launch.h" /* flashc_sm80_variant_launches: route coverage (static link; not ABI) */
#include "test_util.h"

/* ---- Tolerances ---------------------------------------------------------------------------
 * 16-bit inputs: the kernel rounds P to the input type (relative 2^-9 bf16 / 2^-11 f16) before
 * P·V and rounds O to the output type once more, both relative to values <= max|O|; the f32
 * accumulation error is far below that. Hence max abs error <= 2^-8 (bf16) / 2^-10 (f16) times
 * max|O_ref| of the case, plus 2 ulps of the output type at the reference value.
 * LSE: f32 max/sum and ex2.approx (relative ~2^-22) give errors ~1e-6; 1e-3 absolute.
 * 8-bit inputs: relative RMS error against the exact answer on the 16-bit originals no worse
 * than twice that of quantize -> dequantize -> exact attention (baseline computed per case). */
#define TOL_BF16_REL_MAX 0.00390625  /* 2^-8 */
#define TOL_F16_REL_MAX 0.0009765625 /* 2^-10 */
#define TOL_OUT_ULPS 2.0
#define TOL_LSE_ABS 1e-3
#define TOL_8BIT_RMS_FACTOR 2.0
#define TOL_8BIT_RMS_FLOOR 1e-4 /* absorbs a vanishing baseline */
#define TOL_8BIT_KERNEL_RMS 0.0625 /* 2^-4: e4m3's relative rounding of P (see run_backend) */
/* sm_90 has no e4m3 mma.sync: the kernel converts to f16 and keeps P in f16 (relative 2^-11), so
   its own error is P's and the output type's rounding (bf16 2^-9): 2^-8 (H200: max 0.20 %) */
#define TOL_8BIT_KERNEL_RMS_F16P 0.00390625
#define E4M3_MAX 448.0
#define INT8_MAX_Q 127.0

#define MAX_B 8
/* test_routes: this file built with TEST_GPU_ROUTES plans the cases instead of running them; the
   inputs keep their layouts, not their values (the plan reads no data). */
#ifdef TEST_GPU_ROUTES
#define ROUTES_ONLY 1
#else
#define ROUTES_ONLY 0
#endif
#define MAX_DEV_ALLOCS 64
#define WS_POISON_BYTE 0xFF /* workspace fill: every f32 a NaN */
#define GRAPH_REPLAYS 2     /* decode loops replay one graph many times: it must repeat */

enum { BE_SM80, BE_SM90, BE_AUTO, BE_COUNT };
static const flashc_backend BE_ID[BE_COUNT] = {FLASHC_BACKEND_SM80, FLASHC_BACKEND_SM90, FLASHC_BACKEND_AUTO};
static const char *BE_NAME[BE_COUNT] = {"sm80", "sm90", "auto"};
static int g_be_pass[BE_COUNT], g_be_fail[BE_COUNT], g_be_skip[BE_COUNT];
static int g_be_enabled[BE_COUNT] = {1, 1, 1};
static int g_quick = 0;
static const char *g_filter = NULL;
static int g_setup_fail = 0; /* failures outside a (case, backend) pair */
static tu_rng g_rng;
static int g_cc = 0; /* device compute capability, e.g. 90 */
static int g_device_cc = 0; /* the device's own (g_cc may be the portable path's planned one) */
static int g_sms = 0; /* device SM count */
static int g_cases_run = 0; /* cases past the filter */
static int g_unit = -1;     /* --unit K: only unit K (see UNITS), else all */
/* 8-bit kernel error against the exact answer on the quantized inputs (P quantisation + f32
   accumulation alone; the input quantisation is the baseline): count, sum, max per dtype */
enum { K8_E4M3, K8_INT8, K8_E4M3_SM90, K8_COUNT };
static int g_k8_n[K8_COUNT];
static double g_k8_sum[K8_COUNT], g_k8_max[K8_COUNT];
static char g_k8_worst[K8_COUNT][260];

/* ---- Case description ------------------------------------------------------------------- */
enum { BIAS_NONE, BIAS_FULL, BIAS_BCAST_B, BIAS_BCAST_H, BIAS_BCAST_BH, BIAS_EXTENT1_B };
enum { ALIBI_NONE, ALIBI_H, ALIBI_BH };
enum { KV_BATCHED, KV_VARLEN, KV_PAGED };

typedef struct tcase {
    char name[200];
    flashc_dtype dt;
    flashc_dtype out_dt;       /* GPU output dtype */
    float scale;               /* softmax_scale (0 = 1/sqrt(d)) */
    int d, b, sq, sk, hq, hkv;  /* sq/sk: batched extents (varlen: from seqlens) */
    int causal, wl, wr;
    float softcap;
    int bias;
    flashc_dtype bias_dt;
    int alibi;
    int q_varlen, kv;          /* kv: KV_* */
    int seqlens_q[MAX_B], seqlens_k[MAX_B];
    int page_size;
    int seqused;               /* pass seqused_k (always when paged) */
    int lse;
    int pad;                   /* padded row strides on q, k, v, out */
    int vpad;                  /* padded row strides on v only (K/V strides differ) */
    int v_transposed;
    int vtpad;                 /* 8-bit V^T rows padded to 16-byte multiples (TMA strides, the Hopper fp8 path) */
    int extra;                 /* determinism and graph-capture checks */
    int poison_unused;         /* NaN in every K/V key no sequence uses (poison_unused_keys) */
    int pt_spare;              /* paged: page_table rows 3 entries longer than max_pages_per_seq, and
                                  every entry no key uses is -1 (must not be read) */
    int sm90_runs;             /* the Hopper path must take the case on an sm_90 GPU (NOT_SUPPORTED fails) */
    int sm90_refused;          /* the Hopper path must refuse it (NOT_SUPPORTED) on an sm_90 GPU */
    int sm90_decode;           /* the Hopper decode tile must take it (test_routes, H200 plan) */
    int sm80_unsplit;          /* the sm80 plan on an sm_90 GPU has no key splits (no workspace) */
} tcase;

static int is_8bit(flashc_dtype dt) { return dt == FLASHC_DTYPE_FP8_E4M3 || dt == FLASHC_DTYPE_INT8; }

/* every input dtype, for the split-key tiles' case lists */
static const flashc_dtype ALL_DTYPES[4] = {FLASHC_DTYPE_BF16, FLASHC_DTYPE_F16, FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};

/* 1 while the V-rows units run: 8-bit cases give V in K's layout (v_transposed = 0, the sm80 _vr
   twins) instead of V^T, and expect_route expects the twins of the tiles the sections name */
static int g_v_rows;

static tcase base_case(flashc_dtype dt, int d)
{
    tcase c;
    memset(&c, 0, sizeof c);
    const int is8 = is_8bit(dt);
    c.dt = dt;
    c.out_dt = is8 ? FLASHC_DTYPE_BF16 : dt;
    c.v_transposed = is8 && !g_v_rows; /* 8-bit: V^T, or V in K's layout in the V-rows units */
    c.d = d;
    c.b = 2;
    c.sq = 97;
    c.sk = 131;
    c.hq = 2;
    c.hkv = 2;
    c.wl = c.wr = -1;
    c.bias_dt = FLASHC_DTYPE_F32;
    c.lse = 1;
    return c;
}

/* ---- Device memory (freed per case) ----------------------------------------------------- */
static void *g_dev[MAX_DEV_ALLOCS];
static int g_ndev;

/* A fault inside a kernel (illegal address or instruction, misaligned access, trap, launch failure
   or timeout) leaves the process's CUDA context unusable: every later call fails with it. The
   first one names its case; the unit's remaining cases are counted, not run. */
static char g_case_now[200];        /* the case being run */
static char g_context_lost_in[200]; /* non-empty once the context is lost */
static int g_cases_not_run;

static int cuda_error_is_sticky(cudaError_t e)
{
    return e == cudaErrorIllegalAddress || e == cudaErrorIllegalInstruction || e == cudaErrorMisalignedAddress ||
           e == cudaErrorInvalidAddressSpace || e == cudaErrorInvalidPc || e == cudaErrorHardwareStackError ||
           e == cudaErrorAssert || e == cudaErrorLaunchFailure || e == cudaErrorLaunchTimeout;
}

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    printf("FAIL cuda: %s: %s\n", what, cudaGetErrorString(e));
    if (cuda_error_is_sticky(e) && !g_context_lost_in[0]) {
        snprintf(g_context_lost_in, sizeof g_context_lost_in, "%s", g_case_now[0] ? g_case_now : "(no case)");
        printf("FAIL cuda: the context is lost (%s) in %s: the remaining cases of this process cannot run\n",
               cudaGetErrorName(e), g_context_lost_in);
    }
    return 0;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 16;
    if (g_ndev >= MAX_DEV_ALLOCS || !cuda_ok(cudaMalloc(&p, bytes), "cudaMalloc")) return NULL;
    g_dev[g_ndev++] = p;
    return p;
}

static void *dev_upload(const void *host, size_t bytes)
{
    if (!host) return NULL;
    void *p = dev_alloc(bytes);
    if (p && !cuda_ok(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), "upload")) return NULL;
    return p;
}

static void dev_free_all(void)
{
    for (int i = 0; i < g_ndev; ++i) cudaFree(g_dev[i]);
    g_ndev = 0;
}

/* ---- Host inputs ------------------------------------------------------------------------ */
typedef struct inputs {
    tu_tensor q, k, v, bias, alibi, qd, kd, vd;
    int32_t cu_q[MAX_B + 1], cu_k[MAX_B + 1], used[MAX_B];
    int32_t *page_table;
    int max_pages, num_pages;
    int pt_stride; /* page_table row stride: max_pages (+ 3 with pt_spare) */
    int total_q, total_k, sq, sk; /* sq/sk: extents (batched) or max lengths (varlen/paged) */
} inputs;

typedef struct ptrs {
    void *q, *k, *v, *bias, *alibi, *qd, *kd, *vd;
    const int32_t *cu_q, *cu_k, *used, *page_table;
} ptrs;

static void inputs_free(inputs *in)
{
    tu_tensor *t[] = {&in->q, &in->k, &in->v, &in->bias, &in->alibi, &in->qd, &in->kd, &in->vd};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
        if (t[i]->alloc) tu_tensor_free(t[i]);
    free(in->page_table);
    in->page_table = NULL;
}

static int alloc4(tu_tensor *t, flashc_dtype dt, int nd, int64_t a, int64_t b, int64_t c, int64_t d, int pad)
{
    int64_t shape[4] = {a, b, c, d};
    int64_t pads[4] = {0, 0, 0, 0};
    if (pad && nd >= 2) pads[nd - 3 >= 0 ? nd - 3 : 0] = 8, pads[nd - 2] = 8;
    return tu_tensor_alloc(t, dt, nd, shape, pad ? pads : NULL);
}

/* Inputs in the case's (16-bit) dtype; for 8-bit cases these are the originals to quantize. */
static int build_inputs(const tcase *tc, inputs *in, flashc_dtype dt)
{
    memset(in, 0, sizeof *in);
    const int b = tc->b, d = tc->d;
    in->cu_q[0] = in->cu_k[0] = 0;
    for (int i = 0; i < b; ++i) {
        int lq = tc->q_varlen ? tc->seqlens_q[i] : tc->sq;
        int lk = tc->kv != KV_BATCHED ? tc->seqlens_k[i] : tc->sk;
        in->cu_q[i + 1] = in->cu_q[i] + lq;
        in->cu_k[i + 1] = in->cu_k[i] + lk;
        in->used[i] = lk;
        if (tc->seqused && tc->kv != KV_PAGED) in->used[i] = (int32_t)tu_rng_int(&g_rng, 0, lk);
        if (lq > in->sq) in->sq = lq;
        if (in->used[i] > in->sk) in->sk = in->used[i];
    }
    if (!tc->q_varlen) in->sq = tc->sq;
    if (tc->kv == KV_BATCHED) in->sk = tc->sk;
    if (tc->kv == KV_VARLEN) /* max_seqlen_k bounds the cu_seqlens_k lengths, seqused_k or not */
        for (int i = 0; i < b; ++i) in->sk = in->sk > tc->seqlens_k[i] ? in->sk : tc->seqlens_k[i];
    /* varlen: a few rows after the last sequence belong to none and must stay poison */
    in->total_q = tc->q_varlen ? in->cu_q[b] + 3 : b * tc->sq;
    in->total_k = tc->kv == KV_VARLEN ? in->cu_k[b] + 2 : b * tc->sk;
    int ok = 0;
    if (tc->q_varlen)
        ok |= alloc4(&in->q, dt, 3, in->total_q, tc->hq, d, 0, tc->pad);
    else
        ok |= alloc4(&in->q, dt, 4, b, tc->sq, tc->hq, d, tc->pad);
    if (tc->kv == KV_PAGED) {
        int ps = tc->page_size, total_pages = 0;
        in->max_pages = 1;
        for (int i = 0; i < b; ++i) {
            int np = (in->used[i] + ps - 1) / ps;
            total_pages += np;
            if (np > in->max_pages) in->max_pages = np;
        }
        in->num_pages = total_pages + 3;
        int32_t *ids = malloc(sizeof(int32_t) * in->num_pages);
        in->pt_stride = in->max_pages + (tc->pt_spare ? 3 : 0);
        in->page_table = malloc(sizeof(int32_t) * (size_t)b * in->pt_stride);
        if (!ids || !in->page_table) {
            free(ids);
            return -1;
        }
        for (int64_t i = 0; i < (int64_t)b * in->pt_stride; ++i) in->page_table[i] = tc->pt_spare ? -1 : 0;
        for (int i = 0; i < in->num_pages; ++i) ids[i] = i;
        tu_rng_shuffle_i32(&g_rng, ids, in->num_pages);
        int next = 0;
        for (int i = 0; i < b; ++i)
            for (int p = 0; p < (in->used[i] + ps - 1) / ps; ++p) in->page_table[i * in->pt_stride + p] = ids[next++];
        free(ids);
        ok |= alloc4(&in->k, dt, 4, in->num_pages, ps, tc->hkv, d, tc->pad);
        if (tc->v_transposed)
            ok |= alloc4(&in->v, dt, 4, in->num_pages, tc->hkv, d, ps, 0);
        else
            ok |= alloc4(&in->v, dt, 4, in->num_pages, ps, tc->hkv, d, tc->pad || tc->vpad);
    } else if (tc->kv == KV_VARLEN) {
        ok |= alloc4(&in->k, dt, 3, in->total_k, tc->hkv, d, 0, tc->pad);
        if (tc->v_transposed)
            ok |= alloc4(&in->v, dt, 3, tc->hkv, d, in->total_k, 0, 0);
        else
            ok |= alloc4(&in->v, dt, 3, in->total_k, tc->hkv, d, 0, tc->pad || tc->vpad);
    } else {
        ok |= alloc4(&in->k, dt, 4, b, tc->sk, tc->hkv, d, tc->pad);
        if (tc->v_transposed)
            ok |= alloc4(&in->v, dt, 4, b, tc->hkv, d, tc->sk, 0);
        else
            ok |= alloc4(&in->v, dt, 4, b, tc->sk, tc->hkv, d, tc->pad || tc->vpad);
    }
    if (ok) return -1;
    if (!ROUTES_ONLY) {
        tu_tensor_fill_normal(&g_rng, &in->q, 0.0, 1.0);
        tu_tensor_fill_normal(&g_rng, &in->k, 0.0, 1.0);
        tu_tensor_fill_normal(&g_rng, &in->v, 0.0, 1.0);
    }
    if (tc->bias != BIAS_NONE) {
        int64_t shape[4] = {b, tc->hq, in->sq, in->sk};
        int64_t stride[4] = {(int64_t)tc->hq * in->sq * in->sk, (int64_t)in->sq * in->sk, in->sk, 1};
        if (tc->bias == BIAS_BCAST_B || tc->bias == BIAS_BCAST_BH) stride[0] = 0;
        if (tc->bias == BIAS_BCAST_H || tc->bias == BIAS_BCAST_BH) stride[1] = 0;
        if (tc->bias == BIAS_EXTENT1_B) shape[0] = 1, stride[0] = 0; /* broadcast by extent 1 */
        if (tu_tensor_alloc_strided(&in->bias, tc->bias_dt, 4, shape, stride)) return -1;
        tu_tensor_fill_normal(&g_rng, &in->bias, 0.0, 1.0);
    }
    if (tc->alibi != ALIBI_NONE) {
        int64_t shape[2] = {b, tc->hq};
        int r = tc->alibi == ALIBI_H ? tu_tensor_alloc(&in->alibi, FLASHC_DTYPE_F32, 1, shape + 1, NULL)
                                     : tu_tensor_alloc(&in->alibi, FLASHC_DTYPE_F32, 2, shape, NULL);
        if (r) return -1;
        tu_tensor_fill_uniform(&g_rng, &in->alibi, 0.01, 0.3);
    }
    return 0;
}

/* 8-bit copy of a 16-bit tensor with a descale [b, h_kv] that varies by KV head, and by batch
   where dimension 0 is the batch (`batched`; varlen and paged tensors keep one descale per head):
   amax(tensor) / qmax * (1 + 0.1 * hk) * (1 + 0.05 * b), so nothing saturates and each differs. The head of an
   element is its index along dimension head_dim_index (any layout: batched, varlen, paged, V^T);
   `group` query heads share a KV head. row_pad16: rows (the innermost extent) padded to a
   multiple of 16 elements, the padding left poisoned. */
static int quantize(const tu_tensor *src, tu_tensor *dst, tu_tensor *ds, flashc_dtype dt8, int b, int hkv,
                    int group, int head_dim_index, int batched, int row_pad16)
{
    int64_t pads[4] = {0, 0, 0, 0};
    const int nd = src->view.ndim;
    if (row_pad16 && nd >= 2) pads[nd - 2] = (16 - src->view.shape[nd - 1] % 16) % 16;
    const int64_t *pad = row_pad16 ? pads : NULL;
    int64_t dshape[2] = {b, hkv};
    if (ROUTES_ONLY)
        return tu_tensor_alloc(ds, FLASHC_DTYPE_F32, 2, dshape, NULL) ||
                       tu_tensor_alloc(dst, dt8, src->view.ndim, src->view.shape, pad)
                   ? -1
                   : 0;
    int64_t n = tu_numel(&src->view);
    double *x = malloc(sizeof(double) * n);
    if (!x) return -1;
    tu_tensor_decode(&src->view, x);
    double amax = 0;
    for (int64_t i = 0; i < n; ++i) amax = fabs(x[i]) > amax ? fabs(x[i]) : amax;
    double qmax = dt8 == FLASHC_DTYPE_INT8 ? INT8_MAX_Q : E4M3_MAX;
    if (tu_tensor_alloc(ds, FLASHC_DTYPE_F32, 2, dshape, NULL) ||
        tu_tensor_alloc(dst, dt8, src->view.ndim, src->view.shape, pad)) {
        free(x);
        return -1;
    }
    for (int bi = 0; bi < b; ++bi)
        for (int hk = 0; hk < hkv; ++hk)
            tu_encode(FLASHC_DTYPE_F32, ds->alloc, bi * hkv + hk,
                      amax / qmax * (1 + 0.1 * hk) * (batched ? 1 + 0.05 * bi : 1));
    const int64_t per_batch = n / b; /* elements of one batch when dimension 0 is the batch */
    int64_t inner = 1; /* row-major index -> head: (i / inner) % shape[head_dim_index] */
    for (int k = head_dim_index + 1; k < src->view.ndim; ++k) inner *= src->view.shape[k];
    tu_walk w;
    memset(&w, 0, sizeof w);
    for (int64_t i = 0; i < n; ++i, tu_walk_next(&w, &dst->view)) {
        int h = (int)((i / inner) % src->view.shape[head_dim_index]);
        const int64_t bi = batched ? i / per_batch : 0;
        double s = tu_decode(FLASHC_DTYPE_F32, ds->alloc, bi * hkv + h / group);
        tu_encode(dt8, dst->alloc, w.off, x[i] / s);
    }
    free(x);
    return 0;
}

/* V in K's layout -> sequence-innermost V^T of the same KV layout (bf16):
   batched [b, s_k, h, d] -> [b, h, d, s_k]; varlen [total_k, h, d] -> [h, d, total_k];
   paged [pages, page_size, h, d] -> [pages, h, d, page_size]. */
static int transpose_v(const tcase *tc, const inputs *in16, tu_tensor *vt)
{
    const tu_tensor *v = &in16->v;
    const int varlen = tc->kv == KV_VARLEN;
    const int64_t outer = varlen ? 1 : v->view.shape[0], seq = v->view.shape[varlen ? 0 : 1];
    const int h = tc->hkv, d = tc->d;
    int r = varlen ? alloc4(vt, FLASHC_DTYPE_BF16, 3, h, d, seq, 0, 0) : alloc4(vt, FLASHC_DTYPE_BF16, 4, outer, h, d, seq, 0);
    if (r) return -1;
    if (ROUTES_ONLY) return 0;
    for (int64_t a = 0; a < outer; ++a)
        for (int64_t j = 0; j < seq; ++j)
            for (int hh = 0; hh < h; ++hh)
                for (int c = 0; c < d; ++c) {
                    int64_t src = ((a * seq + j) * h + hh) * d + c;
                    int64_t dst = ((a * h + hh) * d + c) * seq + j;
                    tu_encode(FLASHC_DTYPE_BF16, vt->alloc, dst,
                              tu_decode(FLASHC_DTYPE_BF16, v->alloc, tu_offset(&v->view, src)));
                }
    return 0;
}

static void set_params(flashc_attention_params *p, const tcase *tc, const inputs *in, const ptrs *pt)
{
    flashc_attention_params_init(p);
    p->q = in->q.view;
    p->q.data = pt->q;
    p->k = in->k.view;
    p->k.data = pt->k;
    p->v = in->v.view;
    p->v.data = pt->v;
    p->v_transposed = tc->v_transposed;
    p->batch = tc->b;
    if (tc->q_varlen) {
        p->cu_seqlens_q = pt->cu_q;
        p->max_seqlen_q = in->sq;
    }
    if (tc->kv == KV_VARLEN) {
        p->cu_seqlens_k = pt->cu_k;
        p->max_seqlen_k = in->sk;
        if (tc->seqused) p->seqused_k = pt->used;
    }
    if (tc->kv == KV_BATCHED && tc->seqused) p->seqused_k = pt->used;
    if (tc->kv == KV_PAGED) {
        p->page_table = pt->page_table;
        p->page_table_stride = in->pt_stride;
        p->max_pages_per_seq = in->max_pages;
        p->seqused_k = pt->used;
        p->max_seqlen_k = in->sk;
    }
    if (in->qd.alloc) {
        p->q_descale = in->qd.view;
        p->q_descale.data = pt->qd;
        p->k_descale = in->kd.view;
        p->k_descale.data = pt->kd;
        p->v_descale = in->vd.view;
        p->v_descale.data = pt->vd;
    }
    p->softcap = tc->softcap;
    p->softmax_scale = tc->scale;
    p->causal = tc->causal;
    p->window_left = tc->wl;
    p->window_right = tc->wr;
    if (in->bias.alloc) {
        p->bias = in->bias.view;
        p->bias.data = pt->bias;
    }
    if (in->alibi.alloc) {
        p->alibi_slopes = in->alibi.view;
        p->alibi_slopes.data = pt->alibi;
    }
}

static ptrs host_ptrs(inputs *in)
{
    ptrs p = {in->q.alloc, in->k.alloc, in->v.alloc, in->bias.alloc, in->alibi.alloc, in->qd.alloc,
              in->kd.alloc, in->vd.alloc, in->cu_q, in->cu_k, in->used, in->page_table};
    return p;
}

/* Keys no sequence uses get the dtype's poison (NaN; int8 has none) in K and V: rows past
   seqused_k, the rest of a sequence's last page and pages of no sequence, packed rows after the
   last sequence. A kernel that reads them must mask them out of S and keep them out of P.V, where
   a zero probability times NaN is still NaN (a KV cache's unwritten slots hold any bytes). */
static int poison_unused_keys(const tcase *tc, inputs *in)
{
    const int paged = tc->kv == KV_PAGED, varlen = tc->kv == KV_VARLEN;
    const int64_t outer = paged ? in->num_pages : varlen ? 1 : tc->b;
    const int64_t rows = paged ? tc->page_size : varlen ? in->total_k : in->sk;
    char *used = calloc((size_t)(outer * rows), 1);
    if (!used) return -1;
    for (int i = 0; i < tc->b; ++i)
        for (int j = 0; j < in->used[i]; ++j) {
            if (paged)
                used[(int64_t)in->page_table[i * in->pt_stride + j / rows] * rows + j % rows] = 1;
            else
                used[(varlen ? in->cu_k[i] : (int64_t)i * rows) + j] = 1;
        }
    /* K, and V in K's layout: [outer, rows, h, d] | [rows, h, d]; V^T: [outer, h, d, rows] | [h, d, rows] */
    tu_tensor *t[2] = {&in->k, &in->v};
    for (int w = 0; w < 2; ++w) {
        const flashc_tensor *v = &t[w]->view;
        const int vt = w == 1 && tc->v_transposed, has_outer = !varlen;
        const int row_dim = vt ? v->ndim - 1 : has_outer ? 1 : 0;
        const size_t esize = tu_dtype_size(v->dtype);
        int64_t idx[4] = {0, 0, 0, 0}, n = 1;
        for (int k = 0; k < v->ndim; ++k) n *= v->shape[k];
        for (int64_t e = 0; e < n; ++e) {
            int64_t rem = e, off = 0;
            for (int k = v->ndim - 1; k >= 0; --k) {
                idx[k] = rem % v->shape[k];
                rem /= v->shape[k];
                off += idx[k] * v->stride[k];
            }
            const int64_t o = has_outer ? idx[0] : 0;
            if (!used[o * rows + idx[row_dim]]) tu_poison((char *)t[w]->alloc + off * esize, v->dtype, 1);
        }
    }
    free(used);
    return 0;
}

static int upload_ptrs(const tcase *tc, inputs *in, ptrs *d)
{
    memset(d, 0, sizeof *d);
    d->q = dev_upload(in->q.alloc, in->q.bytes);
    d->k = dev_upload(in->k.alloc, in->k.bytes);
    d->v = dev_upload(in->v.alloc, in->v.bytes);
    if (!d->q || !d->k || !d->v) return -1;
    if (in->bias.alloc && !(d->bias = dev_upload(in->bias.alloc, in->bias.bytes))) return -1;
    if (in->alibi.alloc && !(d->alibi = dev_upload(in->alibi.alloc, in->alibi.bytes))) return -1;
    if (in->qd.alloc) {
        d->qd = dev_upload(in->qd.alloc, in->qd.bytes);
        d->kd = dev_upload(in->kd.alloc, in->kd.bytes);
        d->vd = dev_upload(in->vd.alloc, in->vd.bytes);
        if (!d->qd || !d->kd || !d->vd) return -1;
    }
    if (!(d->cu_q = dev_upload(in->cu_q, sizeof in->cu_q))) return -1;
    if (!(d->cu_k = dev_upload(in->cu_k, sizeof in->cu_k))) return -1;
    if (!(d->used = dev_upload(in->used, sizeof in->used))) return -1;
    if (in->page_table &&
        !(d->page_table = dev_upload(in->page_table, sizeof(int32_t) * (size_t)tc->b * in->pt_stride)))
        return -1;
    return 0;
}

/* Output and LSE tensors of the case (host, poisoned). */
static int alloc_outputs(const tcase *tc, const inputs *in, flashc_dtype odt, tu_tensor *o, tu_tensor *l)
{
    memset(o, 0, sizeof *o);
    memset(l, 0, sizeof *l);
    int r = tc->q_varlen ? alloc4(o, odt, 3, in->total_q, tc->hq, tc->d, 0, tc->pad)
                         : alloc4(o, odt, 4, tc->b, tc->sq, tc->hq, tc->d, tc->pad);
    if (r) return -1;
    if (tc->lse) {
        r = tc->q_varlen ? alloc4(l, FLASHC_DTYPE_F32, 2, tc->hq, in->total_q, 0, 0, 0)
                         : alloc4(l, FLASHC_DTYPE_F32, 3, tc->b, tc->hq, tc->sq, 0, 0);
        if (r) return -1;
    }
    return 0;
}

/* CPU oracle: f32 output and LSE decoded into want / want_lse (malloc'd). */
static int cpu_reference(const tcase *tc, inputs *in, double **want, double **want_lse, int64_t *n_out,
                         int64_t *n_lse)
{
    tu_tensor o, l;
    if (alloc_outputs(tc, in, FLASHC_DTYPE_F32, &o, &l)) return -1;
    flashc_attention_params p;
    ptrs hp = host_ptrs(in);
    set_params(&p, tc, in, &hp);
    p.out = o.view;
    if (tc->lse) p.lse = l.view;
    p.backend = FLASHC_BACKEND_CPU;
    flashc_status st = flashc_attention_forward(&p, NULL, 0, NULL);
    int rc = 0;
    if (st != FLASHC_STATUS_SUCCESS) {
        printf("FAIL %s: CPU reference: %s: %s\n", tc->name, flashc_status_string(st), flashc_last_error());
        rc = -1;
    } else {
        *n_out = tu_numel(&o.view);
        *want = malloc(sizeof(double) * *n_out);
        tu_tensor_decode(&o.view, *want);
        *n_lse = 0;
        *want_lse = NULL;
        if (tc->lse) {
            *n_lse = tu_numel(&l.view);
            *want_lse = malloc(sizeof(double) * *n_lse);
            tu_tensor_decode(&l.view, *want_lse);
        }
    }
    tu_tensor_free(&o);
    if (l.alloc) tu_tensor_free(&l);
    return rc;
}

static double rel_rms(const double *got, const double *want, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (isnan(want[i])) continue; /* rows outside every sequence */
        double e = isnan(got[i]) ? 1e30 : got[i] - want[i];
        num += e * e;
        den += want[i] * want[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* ---- One (case, backend) run ------------------------------------------------------------ */
typedef struct run_out {
    tu_tensor o, l;
    void *o_dev, *l_dev;
} run_out;

/* Returns 1 pass, 0 fail, -1 skipped. */
static int run_backend(const tcase *tc, inputs *in, const ptrs *dp, int be, const double *want,
                       const double *want_lse, int64_t n_out, int64_t n_lse, const double *want_orig,
                       double base_rms)
{
    const int is8 = is_8bit(tc->dt);
    const flashc_dtype odt = tc->out_dt;
    int ok = 1;
    run_out r;
    double *got = NULL, *got_lse = NULL;
    void *ws = NULL;
    if (alloc_outputs(tc, in, odt, &r.o, &r.l)) return 0;
    r.o_dev = dev_upload(r.o.alloc, r.o.bytes);
    r.l_dev = tc->lse ? dev_upload(r.l.alloc, r.l.bytes) : NULL;
    if (!r.o_dev || (tc->lse && !r.l_dev)) {
        ok = 0;
        goto done;
    }
    flashc_attention_params p;
    set_params(&p, tc, in, dp);
    p.out = r.o.view;
    p.out.data = r.o_dev;
    if (tc->lse) {
        p.lse = r.l.view;
        p.lse.data = r.l_dev;
    }
    p.backend = BE_ID[be];
    size_t ws_bytes = 0;
    flashc_status st = flashc_attention_workspace_size(&p, &ws_bytes);
    if (be == BE_SM80 && tc->sm80_unsplit && g_cc >= 90 && !getenv("FLASHC_SM80_SMEM_OPTIN") &&
        (st != FLASHC_STATUS_SUCCESS || ws_bytes != 0)) {
        printf("FAIL %s [%s]: the plan must not split the keys, got %s with %zu bytes of workspace\n", tc->name,
               BE_NAME[be], flashc_status_string(st), ws_bytes);
        ok = 0;
    }
    if (be == BE_SM90 && tc->sm90_refused && g_device_cc == 90 && st != FLASHC_STATUS_NOT_SUPPORTED) {
        printf("FAIL %s [%s]: the Hopper path must refuse this case, got %s\n", tc->name, BE_NAME[be],
               flashc_status_string(st));
        ok = 0;
        goto done; /* not run: the refusal guards a kernel fault */
    }
    if (st == FLASHC_STATUS_SUCCESS && ws_bytes > 0 && !(ws = dev_alloc(ws_bytes))) {
        ok = 0;
        goto done;
    }
    if (st == FLASHC_STATUS_SUCCESS && ws_bytes > 0) {
        /* the caller's workspace holds arbitrary bytes: as NaN partials, any the merge reads
           without a split having written it fails the comparison */
        if (!cuda_ok(cudaMemset(ws, WS_POISON_BYTE, ws_bytes), "poison workspace")) {
            ok = 0;
            goto done;
        }
        /* one byte short must be refused before anything is written */
        flashc_status st_short = flashc_attention_forward(&p, ws, ws_bytes - 1, NULL);
        if (st_short != FLASHC_STATUS_WORKSPACE_TOO_SMALL) {
            printf("FAIL %s [%s]: workspace of %zu - 1 bytes gave %s, not WORKSPACE_TOO_SMALL\n", tc->name,
                   BE_NAME[be], ws_bytes, flashc_status_string(st_short));
            ok = 0;
        }
    }
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_attention_forward(&p, ws, ws_bytes, NULL);
    if (st == FLASHC_STATUS_NOT_SUPPORTED) {
        /* the support matrix: head dims 64, 128, 256; 16-bit inputs, or 8-bit ones with V^T or V in
           K's layout (e4m3 from sm_89) */
        const int dtype_ok = !is8 || tc->dt != FLASHC_DTYPE_FP8_E4M3 || g_cc >= 89;
        const int in_matrix = dtype_ok && (tc->d == 64 || tc->d == 128 || tc->d == 256);
        if (be == BE_AUTO && in_matrix) {
            printf("FAIL %s [%s]: NOT_SUPPORTED inside the support matrix: %s\n", tc->name, BE_NAME[be],
                   flashc_last_error());
            ok = 0;
            goto done;
        }
        if (be == BE_SM90 && tc->sm90_runs && g_device_cc == 90) {
            printf("FAIL %s [%s]: the Hopper path must take this case: %s\n", tc->name, BE_NAME[be],
                   flashc_last_error());
            ok = 0;
            goto done;
        }
        if (tu_verbose()) printf("skip %s [%s]: %s\n", tc->name, BE_NAME[be], flashc_last_error());
        ok = -1;
        goto done;
    }
    if (st != FLASHC_STATUS_SUCCESS) {
        printf("FAIL %s [%s]: %s: %s\n", tc->name, BE_NAME[be], flashc_status_string(st), flashc_last_error());
        ok = 0;
        goto done;
    }
    if (!cuda_ok(cudaGetLastError(), "launch") || !cuda_ok(cudaDeviceSynchronize(), "sync") ||
        !cuda_ok(cudaMemcpy(r.o.alloc, r.o_dev, r.o.bytes, cudaMemcpyDeviceToHost), "download out") ||
        (tc->lse && !cuda_ok(cudaMemcpy(r.l.alloc, r.l_dev, r.l.bytes, cudaMemcpyDeviceToHost), "download lse"))) {
        printf("FAIL %s [%s]: CUDA error\n", tc->name, BE_NAME[be]);
        ok = 0;
        goto done;
    }
    got = malloc(sizeof(double) * n_out);
    tu_tensor_decode(&r.o.view, got);
    if (is8) {
        /* compare with the exact answer on the 16-bit originals */
        double err = rel_rms(got, want_orig, n_out);
        int64_t n_nan = 0;
        for (int64_t i = 0; i < n_out; ++i) n_nan += isnan(got[i]) && !isnan(want[i]);
        for (int64_t i = 0; i < n_out; ++i) n_nan += !isnan(got[i]) && isnan(want[i]);
        if (n_nan || !(err <= TOL_8BIT_RMS_FACTOR * base_rms + TOL_8BIT_RMS_FLOOR)) {
            printf("FAIL %s [%s]: rel RMS %.3g vs baseline %.3g (quantize->exact), %lld NaN/unexpected writes\n",
                   tc->name, BE_NAME[be], err, base_rms, (long long)n_nan);
            ok = 0;
        }
        /* the kernel's own error (P quantisation + accumulation): against the exact answer on the
           quantized inputs; bounded by the e4m3 rounding of P (relative 2^-4) for both dtypes, by
           P's f16 rounding where the portable path runs e4m3 on f16 MMAs (cc >= 9.0, unless the
           build runs sm_89's e4m3 code there: FLASHC_SM80_E4M3_NATIVE). The Hopper path's fp8
           wgmma rounds P to e4m3. */
        flashc_backend ran = BE_ID[be];
        if (be == BE_AUTO && flashc_attention_select_backend(&p, &ran) != FLASHC_STATUS_SUCCESS) {
            printf("FAIL %s [%s]: select_backend after a successful forward: %s\n", tc->name, BE_NAME[be],
                   flashc_last_error());
            ok = 0;
        }
        const int on_sm90 = ran == FLASHC_BACKEND_SM90;
        const double err_k = rel_rms(got, want, n_out);
        const int p_f16 = g_cc >= 90 && !on_sm90 && !flashc_sm80_e4m3_native();
        const double tol_k = tc->dt == FLASHC_DTYPE_FP8_E4M3 && p_f16 ? TOL_8BIT_KERNEL_RMS_F16P : TOL_8BIT_KERNEL_RMS;
        const int k8 = tc->dt == FLASHC_DTYPE_INT8 ? K8_INT8 : on_sm90 ? K8_E4M3_SM90 : K8_E4M3;
        ++g_k8_n[k8];
        g_k8_sum[k8] += err_k;
        if (err_k > g_k8_max[k8]) {
            g_k8_max[k8] = err_k;
            snprintf(g_k8_worst[k8], sizeof g_k8_worst[k8], "%s [%s]", tc->name, BE_NAME[be]);
        }
        if (tu_verbose())
            printf("8bit %s [%s]: rel RMS %.4f (baseline %.4f), kernel alone %.4f\n", tc->name, BE_NAME[be], err,
                   base_rms, err_k);
        if (!(err_k <= tol_k)) {
            printf("FAIL %s [%s]: kernel rel RMS %.3g against exact attention on the quantized inputs > %.3g\n",
                   tc->name, BE_NAME[be], err_k, tol_k);
            ok = 0;
        }
    } else {
        double maxref = 0;
        for (int64_t i = 0; i < n_out; ++i)
            if (!isnan(want[i]) && fabs(want[i]) > maxref) maxref = fabs(want[i]);
        /* the coarser of the input type (P rounding) and the output type (final rounding) */
        int coarse = tc->dt == FLASHC_DTYPE_BF16 || odt == FLASHC_DTYPE_BF16;
        double atol = (coarse ? TOL_BF16_REL_MAX : TOL_F16_REL_MAX) * maxref;
        tu_cmp c = tu_compare(got, want, n_out, atol, 0.0, TOL_OUT_ULPS, odt);
        if (c.n_bad || c.n_nan) {
            char label[260];
            snprintf(label, sizeof label, "FAIL %s [%s] out", tc->name, BE_NAME[be]);
            tu_cmp_print(label, &c);
            ok = 0;
        }
    }
    if (tu_tensor_poison_intact(&r.o)) {
        printf("FAIL %s [%s]: wrote outside the output view\n", tc->name, BE_NAME[be]);
        ok = 0;
    }
    if (tc->lse) {
        got_lse = malloc(sizeof(double) * n_lse);
        tu_tensor_decode(&r.l.view, got_lse);
        tu_cmp c = tu_compare(got_lse, want_lse, n_lse, is8 ? 0.05 : TOL_LSE_ABS, 0.0, 0.0, FLASHC_DTYPE_F32);
        if (c.n_bad || c.n_nan) {
            char label[260];
            snprintf(label, sizeof label, "FAIL %s [%s] lse", tc->name, BE_NAME[be]);
            tu_cmp_print(label, &c);
            ok = 0;
        }
    }
    if (ok && (tc->extra || ws_bytes > 0) && be != BE_AUTO) {
        /* Determinism: a second call gives the same bytes (split-KV: over what the first call
           left in the workspace). */
        void *o2 = dev_alloc(r.o.bytes);
        unsigned char *h1 = malloc(r.o.bytes), *h2 = malloc(r.o.bytes);
        memcpy(h1, r.o.alloc, r.o.bytes);
        tu_poison(r.o.alloc, odt, r.o.span); /* r.o.alloc now holds the poisoned image to upload */
        p.out.data = o2;
        if (!o2 || !h1 || !h2 || !cuda_ok(cudaMemcpy(o2, r.o.alloc, r.o.bytes, cudaMemcpyHostToDevice), "copy") ||
            flashc_attention_forward(&p, ws, ws_bytes, NULL) != FLASHC_STATUS_SUCCESS ||
            !cuda_ok(cudaDeviceSynchronize(), "sync") ||
            !cuda_ok(cudaMemcpy(h2, o2, r.o.bytes, cudaMemcpyDeviceToHost), "download")) {
            printf("FAIL %s [%s]: repeated call failed: %s\n", tc->name, BE_NAME[be], flashc_last_error());
            ok = 0;
        } else if (memcmp(h1, h2, r.o.bytes) != 0) {
            printf("FAIL %s [%s]: repeated call is not bit-identical\n", tc->name, BE_NAME[be]);
            ok = 0;
        }
        /* Graph capture: the call records into a graph and every replay matches the direct call. */
        cudaStream_t s;
        cudaGraph_t g = NULL;
        cudaGraphExec_t ge = NULL;
        if (ok && cuda_ok(cudaStreamCreate(&s), "stream")) {
            int cap_ok = cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
            flashc_status cst = cap_ok ? flashc_attention_forward(&p, ws, ws_bytes, (struct CUstream_st *)s)
                                       : FLASHC_STATUS_INTERNAL_ERROR;
            cap_ok = cuda_ok(cudaStreamEndCapture(s, &g), "end capture") && cap_ok;
            if (cst != FLASHC_STATUS_SUCCESS || !cap_ok || !cuda_ok(cudaGraphInstantiate(&ge, g, 0), "instantiate")) {
                printf("FAIL %s [%s]: graph capture: %s\n", tc->name, BE_NAME[be],
                       cst != FLASHC_STATUS_SUCCESS ? flashc_last_error() : "CUDA error");
                ok = 0;
            }
            for (int rep = 0; ok && rep < GRAPH_REPLAYS; ++rep) {
                if (!cuda_ok(cudaMemcpy(o2, r.o.alloc, r.o.bytes, cudaMemcpyHostToDevice), "re-poison") ||
                    !cuda_ok(cudaGraphLaunch(ge, s), "graph launch") || !cuda_ok(cudaStreamSynchronize(s), "sync") ||
                    !cuda_ok(cudaMemcpy(h2, o2, r.o.bytes, cudaMemcpyDeviceToHost), "download")) {
                    printf("FAIL %s [%s]: graph replay %d: CUDA error\n", tc->name, BE_NAME[be], rep);
                    ok = 0;
                } else if (memcmp(h1, h2, r.o.bytes) != 0) {
                    printf("FAIL %s [%s]: graph replay %d differs from the direct call\n", tc->name, BE_NAME[be],
                           rep);
                    ok = 0;
                }
            }
            if (ge) cudaGraphExecDestroy(ge);
            if (g) cudaGraphDestroy(g);
            cudaStreamDestroy(s);
        }
        free(h1);
        free(h2);
    }
done:
    free(got);
    free(got_lse);
    tu_tensor_free(&r.o);
    if (r.l.alloc) tu_tensor_free(&r.l);
    cudaGetLastError(); /* a failure above must not leak into the next run */
    return ok;
}

/* ---- Route coverage: which sm80 kernels the cases reached (the library's launch counts) ------
   A section that forces a route through a dev hook checks that its kernels ran: the 8-bit 32-row
   split-key cases sent bf16 / f16 through the 16-bit tiles for four sessions, passing, until a
   stray edit was found by eye. Checked only on the plan the sections are written for (sm_90 or
   later, the full shared-memory opt-in: no FLASHC_SM80_SMEM_OPTIN), without --filter, and when the
   section's cases ran on the sm80 backend. main() lists the variants no case reached. */
#define MAX_SM80_VARIANTS 1024
/* test_routes (this file built with TEST_GPU_ROUTES, a CPU test): every case planned, not run,
   for the sm80 plans the GPU tests run on the H200: as built (sm_90, 227 KB opt-in: test_gpu), as
   an sm_89 GPU with the H200's SMs (99 KB, no sm_90-only tile: test_gpu_sm80_as_sm89, the GPU
   suite's second pass, FLASHC_SM80_AS_CC=89) and as an sm_80 one (163 KB, no fp8:
   test_gpu_sm80_as_sm80). */
enum { ROUTE_FULL, ROUTE_SM89, ROUTE_SM80, ROUTE_MODES };
static const char *ROUTE_MODE_NAME[ROUTE_MODES] = {"sm_90, 227 KB opt-in", "sm_89, 99 KB opt-in",
                                                   "sm_80, 163 KB opt-in"};
#define H200_SMS 132
#define H200_SMEM_OPTIN 232448
#define SM86_SMEM_OPTIN 101376
#define SM80_SMEM_OPTIN 166912
#define H200_L2_BYTES 52428800
#define H200_DRAM_BYTES_PER_S 4.8e12  /* HBM3e, 6144 bits */
#define H100_DRAM_BYTES_PER_S 3.35e12 /* H100 SXM, HBM3, 5120 bits */
static const flashc_device_info ROUTE_DEVICE[ROUTE_MODES] = {
    {0, 9, 0, H200_SMS, H200_SMEM_OPTIN, H200_L2_BYTES, H200_DRAM_BYTES_PER_S},
    {0, 8, 9, H200_SMS, SM86_SMEM_OPTIN, H200_L2_BYTES, H200_DRAM_BYTES_PER_S},
    {0, 8, 0, H200_SMS, SM80_SMEM_OPTIN, H200_L2_BYTES, H200_DRAM_BYTES_PER_S}};
static unsigned long long g_route_hits[ROUTE_MODES][MAX_SM80_VARIANTS];

/* Launches of sm80 variant i so far: real ones, or in test_routes the full opt-in plan's picks */
static unsigned long long variant_hits(int i)
{
    unsigned long long n = 0;
    if (ROUTES_ONLY) return g_route_hits[ROUTE_FULL][i];
    flashc_sm80_variant_launches(i, NULL, &n);
    return n;
}

typedef struct route_mark {
    unsigned long long launches[MAX_SM80_VARIANTS];
    int cases_run;
} route_mark;

static int sm80_variant_count(void)
{
    const int n = flashc_sm80_variant_launches(-1, NULL, NULL);
    return n < MAX_SM80_VARIANTS ? n : MAX_SM80_VARIANTS;
}

static void route_mark_set(route_mark *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < sm80_variant_count(); ++i) m->launches[i] = variant_hits(i);
    m->cases_run = g_cases_run;
}

/* `pattern` against a variant's symbol: a substring, in which one '*' matches any run of
   characters and a final '$' anchors the end ("_bf16_d128_m32_sk$": the general tile, no twin). */
static int route_match(const char *name, const char *pattern)
{
    char a[128];
    snprintf(a, sizeof a, "%s", pattern);
    size_t la = strlen(a);
    const int anchored = la > 0 && a[la - 1] == '$';
    if (anchored) a[--la] = '\0';
    char *star = strchr(a, '*');
    const char *b = "";
    if (star) {
        *star = '\0';
        b = star + 1;
    }
    const char *hit = strstr(name, a);
    if (!hit) return 0;
    const char *rest = star ? hit + strlen(a) : NULL;
    if (!star) { /* anchored: the last occurrence must end the name */
        if (!anchored) return 1;
        const size_t ln = strlen(name), l = strlen(a);
        return ln >= l && !strcmp(name + ln - l, a);
    }
    if (!anchored) return strstr(rest, b) != NULL;
    const size_t lr = strlen(rest), lb = strlen(b);
    return lr >= lb && !strcmp(rest + lr - lb, b);
}

/* The pattern of `tile`'s V-rows twin (g_v_rows): "_vr" ends the symbol; pages of 16 keys take
   _sk_pg_vr (the _pg16 tiles are a V^T layout and have no twin). */
static void v_rows_pattern(char *out, size_t n, const char *tile)
{
    char a[128];
    snprintf(a, sizeof a, "%s", tile);
    char *p16 = strstr(a, "_pg16");
    if (p16) memmove(p16 + 3, p16 + 5, strlen(p16 + 5) + 1);
    const size_t la = strlen(a);
    const int anchored = la > 0 && a[la - 1] == '$';
    if (anchored) a[la - 1] = '\0';
    /* route_match takes one '*': an anchored or starred pattern gets the suffix appended */
    snprintf(out, n, anchored || strchr(a, '*') ? "%s_vr$" : "%s*_vr$", a);
}

/* Some sm80 variant whose symbol matches `tile` (route_match; in the V-rows units its _vr twin)
   launched since *m (a failure if not). */
static void expect_route(const route_mark *m, const char *section, const char *tile)
{
    /* a filter may keep part of a section: then its expectations do not hold */
    if (!g_be_enabled[BE_SM80] || g_cc < 90 || getenv("FLASHC_SM80_SMEM_OPTIN") || g_filter ||
        g_cases_run == m->cases_run)
        return;
    char vr[128];
    if (g_v_rows) {
        v_rows_pattern(vr, sizeof vr, tile);
        tile = vr;
    }
    unsigned long long n = 0;
    for (int i = 0; i < sm80_variant_count(); ++i) {
        const char *name = NULL;
        flashc_sm80_variant_launches(i, &name, NULL);
        if (name && route_match(name, tile)) n += variant_hits(i) - m->launches[i];
    }
    if (n == 0) {
        printf("FAIL %s: no case reached an sm80 kernel matching \"%s\"\n", section, tile);
        ++g_setup_fail;
    }
}

/* The dtype as the sm80 kernels' symbols spell it */
static const char *kernel_dt(flashc_dtype dt)
{
    return dt == FLASHC_DTYPE_BF16 ? "bf16" : dt == FLASHC_DTYPE_F16 ? "f16" : dt == FLASHC_DTYPE_FP8_E4M3 ? "e4m3" : "int8";
}

/* expect_route with a pattern printed from `fmt` */
static void expect_routef(const route_mark *m, const char *section, const char *fmt, ...)
{
    char tile[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tile, sizeof tile, fmt, ap);
    va_end(ap);
    expect_route(m, section, tile);
}

static const char *short_variant_name(int i)
{
    const char *name = NULL, *prefix = "flashc_sm80_fwd_";
    flashc_sm80_variant_launches(i, &name, NULL);
    return !name ? "?" : strncmp(name, prefix, strlen(prefix)) ? name : name + strlen(prefix);
}

/* The variants no case launched in this process (a report: which ones a run can reach depends on
   the opt-in and the filter; test_routes checks the union of the two plans). */
static void report_unreached_routes(void)
{
    int n = 0, unreached = 0;
    if (!g_be_enabled[BE_SM80] || ROUTES_ONLY) return;
#ifdef TEST_GPU_DRYRUN
    return; /* nothing launched */
#endif
    n = sm80_variant_count();
    for (int i = 0; i < n; ++i) unreached += variant_hits(i) == 0;
    printf("sm80 route coverage: %d of %d kernel variants launched%s", n - unreached, n, unreached ? "; never:" : "\n");
    for (int i = 0; i < n && unreached; ++i)
        if (variant_hits(i) == 0) printf(" %s", short_variant_name(i));
    if (unreached) printf("\n");
}

/* The Hopper path's verdict on an H200 for the cases that name one (sm90_runs: must take it;
   sm90_refused: must refuse it), the check the GPU run makes on an sm_90 GPU. A build without the
   Hopper path (FLASHC_BUILD_SM90=OFF) checks nothing. */
static int g_sm90_route_checked, g_sm90_route_fail;
static void route_sm90(const tcase *tc, const flashc_attention_params *p)
{
    if (!tc->sm90_runs && !tc->sm90_refused) return;
    flashc_problem pr;
    memset(&pr, 0, sizeof pr);
    flashc_status st = flashc_validate(p, &pr);
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_validate_gpu(&pr);
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_sm90_check(&pr, &ROUTE_DEVICE[ROUTE_FULL]);
    if (st == FLASHC_STATUS_NOT_SUPPORTED && strstr(flashc_last_error(), "FLASHC_BUILD_SM90=OFF")) return;
    ++g_sm90_route_checked;
    if (tc->sm90_runs && st != FLASHC_STATUS_SUCCESS) {
        printf("FAIL %s [sm90 route]: the Hopper path must take this case: %s: %s\n", tc->name,
               flashc_status_string(st), flashc_last_error());
        ++g_sm90_route_fail;
    }
    if (tc->sm90_refused && st != FLASHC_STATUS_NOT_SUPPORTED) {
        printf("FAIL %s [sm90 route]: the Hopper path must refuse this case, got %s\n", tc->name,
               flashc_status_string(st));
        ++g_sm90_route_fail;
    }
    if (tc->sm90_decode && st == FLASHC_STATUS_SUCCESS && !flashc_sm90_decode_route(&pr, &ROUTE_DEVICE[ROUTE_FULL])) {
        printf("FAIL %s [sm90 route]: the Hopper decode tile must take this case\n", tc->name);
        ++g_sm90_route_fail;
    }
}

/* Plan one case on both devices (sm80 backend), as the GPU suite's two passes would run it. */
static int route_case(const tcase *tc, inputs *in)
{
    tu_tensor o, l;
    if (alloc_outputs(tc, in, tc->out_dt, &o, &l)) return -1;
    ptrs hp = host_ptrs(in);
    flashc_attention_params p;
    set_params(&p, tc, in, &hp);
    p.out = o.view;
    p.out.data = o.alloc;
    if (tc->lse) {
        p.lse = l.view;
        p.lse.data = l.alloc;
    }
    route_sm90(tc, &p);
    p.backend = FLASHC_BACKEND_SM80;
    int planned = 0; /* outside the support matrix (or this device's), no plan: counted as skipped */
    for (int m = 0; m < ROUTE_MODES; ++m) {
        const int v = flashc_sm80_route(&p, &ROUTE_DEVICE[m]);
        if (v >= 0 && v < MAX_SM80_VARIANTS) ++g_route_hits[m][v];
        planned |= v >= 0;
    }
    if (tc->sm80_unsplit) { /* the full opt-in plan (an H200) */
        const size_t ws = flashc_sm80_route_workspace(&p, &ROUTE_DEVICE[ROUTE_FULL]);
        if (ws != 0) {
            printf("FAIL %s: the plan must not split the keys, needs %zu bytes of workspace\n", tc->name, ws);
            ++g_setup_fail;
        }
    }
    ++(planned ? g_be_pass : g_be_skip)[BE_SM80];
    tu_tensor_free(&o);
    if (l.alloc) tu_tensor_free(&l);
    return 0;
}

/* test_routes' verdict: every sm80 variant is planned for some case under one of the two plans
   (else the GPU suite never runs it). Returns the number of unreached variants. */
static int check_route_union(void)
{
    const int n = sm80_variant_count();
    int unreached = 0;
    for (int m = 0; m < ROUTE_MODES; ++m) {
        int hit = 0;
        for (int i = 0; i < n; ++i) hit += g_route_hits[m][i] > 0;
        printf("%s: %d of %d sm80 variants planned\n", ROUTE_MODE_NAME[m], hit, n);
    }
    printf("not planned on sm_90:");
    for (int i = 0; i < n; ++i)
        if (g_route_hits[ROUTE_FULL][i] == 0)
            printf(" %s (%s%s)", short_variant_name(i), g_route_hits[ROUTE_SM89][i] ? "sm_89" : "",
                   g_route_hits[ROUTE_SM80][i] ? (g_route_hits[ROUTE_SM89][i] ? ", sm_80" : "sm_80") : "");
    printf("\n");
    for (int i = 0; i < n; ++i) {
        unsigned long long any = 0;
        for (int m = 0; m < ROUTE_MODES; ++m) any += g_route_hits[m][i];
        if (!any) {
            printf("FAIL route coverage: no case plans sm80 variant %s (under any plan)\n", short_variant_name(i));
            ++unreached;
        }
    }
    return unreached;
}

/* test_routes: planning-only params (pointers never read) for the route checks below: Q [b, s_q,
   h_q, d]; K [b, s_k, h_kv, d], or on pages of ps keys [b * pages, ps, h_kv, d] with a page table;
   V the same, or for 8-bit V^T [b, h_kv, d, s_k] ([b * pages, h_kv, d, ps]) unless v_rows; bf16 out. */
static void route_fake_params(flashc_attention_params *p, flashc_dtype dt, int64_t b, int64_t sq, int64_t sk,
                              int64_t hq, int64_t hkv, int64_t d, int64_t ps, int v_rows)
{
    static uint64_t fake[64]; /* 16-byte aligned, never dereferenced */
    const int64_t pages = ps ? (sk + ps - 1) / ps : 0;
    const int64_t qs[4] = {b, sq, hq, d};
    const int64_t ks[4] = {b, sk, hkv, d}, kps[4] = {b * pages, ps, hkv, d};
    const int64_t vts[4] = {b, hkv, d, sk}, vtps[4] = {b * pages, hkv, d, ps};
    const int vt = is_8bit(dt) && !v_rows;
    flashc_attention_params_init(p);
    p->q = flashc_make_tensor(fake, dt, 4, qs);
    p->k = flashc_make_tensor(fake, dt, 4, ps ? kps : ks);
    p->v = flashc_make_tensor(fake, dt, 4, vt ? (ps ? vtps : vts) : ps ? kps : ks);
    p->v_transposed = vt;
    p->out = flashc_make_tensor(fake, FLASHC_DTYPE_BF16, 4, qs);
    if (ps) {
        p->page_table = (const int32_t *)fake;
        p->page_table_stride = pages;
        p->max_pages_per_seq = (int32_t)pages;
        p->seqused_k = (const int32_t *)fake;
        p->max_seqlen_k = (int32_t)sk;
    }
    p->backend = FLASHC_BACKEND_SM80;
}

/* test_routes: *p validated into *pr, the problem the planners take; 0, with a FAIL line naming
   `what` and case c, where it does not validate. */
static int route_problem(const flashc_attention_params *p, flashc_problem *pr, const char *what, int c)
{
    memset(pr, 0, sizeof *pr);
    flashc_status st = flashc_validate(p, pr);
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_validate_gpu(pr);
    if (st == FLASHC_STATUS_SUCCESS) return 1;
    printf("FAIL %s: case %d does not validate: %s\n", what, c, flashc_last_error());
    return 0;
}

/* test_routes: the H200 route device with another DRAM peak (0: a GPU that does not report it). */
static flashc_device_info route_device_with_dram(double dram_bytes_per_s)
{
    flashc_device_info dev = ROUTE_DEVICE[ROUTE_FULL];
    dev.dram_bytes_per_s = dram_bytes_per_s;
    return dev;
}

/* test_routes: the dev hook FLASHC_SM80_AS_CC (sm80_launch.cu sm80_device), which the GPU suite's
   sm_89 pass relies on, plans as the named older GPU: on the H200 an fp8 decode call takes a
   split-key tile (sm_90 only); as sm_89 a tile with a body there; as sm_86 fp8 is refused; a
   value that is not an older GPU's changes nothing. bf16 d256 prefill: the 8-warp tile (192 KB)
   on the H200, a 99 KB tile as sm_89. Pointers are never read (planning only). Returns failures. */
static int route_hook_checks(void)
{
    int fail = 0;
    struct {
        flashc_dtype dt;
        int64_t s_q, s_k, h_q, h_kv, d;
        const char *h200, *not_sm89; /* expected in the H200's pick, absent from the sm_89 one */
    } cases[2] = {{FLASHC_DTYPE_FP8_E4M3, 1, 4096, 32, 8, 128, "_sk", "_sk"},
                  {FLASHC_DTYPE_BF16, 2048, 2048, 8, 8, 256, "_n64", "_n64"}};
    for (int c = 0; c < 2; ++c) {
        const int is8 = is_8bit(cases[c].dt);
        flashc_attention_params p;
        route_fake_params(&p, cases[c].dt, 1, cases[c].s_q, cases[c].s_k, cases[c].h_q, cases[c].h_kv, cases[c].d, 0, 0);
        const char *name = NULL;
        static const char *const as[4] = {NULL, "89", "86", "95"};
        int v[4];
        for (int k = 0; k < 4; ++k) {
            if (as[k]) setenv("FLASHC_SM80_AS_CC", as[k], 1);
            v[k] = flashc_sm80_route(&p, &ROUTE_DEVICE[ROUTE_FULL]);
            /* what test_gpu takes as its compute capability under the hook */
            const int cc = flashc_sm80_planned_cc(&ROUTE_DEVICE[ROUTE_FULL]), want = k == 1 ? 89 : k == 2 ? 86 : 90;
            if (cc != want) {
                printf("FAIL AS_CC hook: AS_CC=%s planned as cc %d, not %d\n", as[k] ? as[k] : "(unset)", cc, want);
                ++fail;
            }
            unsetenv("FLASHC_SM80_AS_CC");
        }
        if (v[0] >= 0) flashc_sm80_variant_launches(v[0], &name, NULL);
        if (v[0] < 0 || !name || !strstr(name, cases[c].h200)) {
            printf("FAIL AS_CC hook: case %d on the H200 planned %s, not a \"%s\" tile\n", c, name ? name : "nothing",
                   cases[c].h200);
            ++fail;
        }
        name = NULL;
        if (v[1] >= 0) flashc_sm80_variant_launches(v[1], &name, NULL);
        if (v[1] < 0 || !name || strstr(name, cases[c].not_sm89)) {
            printf("FAIL AS_CC hook: case %d as sm_89 planned %s (want a tile without \"%s\")\n", c,
                   name ? name : "nothing", cases[c].not_sm89);
            ++fail;
        }
        if ((v[2] >= 0) != !is8) { /* fp8 needs sm_89; bf16 runs on sm_86 */
            printf("FAIL AS_CC hook: case %d as sm_86 planned variant %d\n", c, v[2]);
            ++fail;
        }
        if (v[3] != v[0]) {
            printf("FAIL AS_CC hook: case %d with AS_CC=95 (not older) planned %d, not %d\n", c, v[3], v[0]);
            ++fail;
        }
    }
    printf("AS_CC hook: %s\n", fail ? "FAILED" : "fp8 decode and bf16 d256 prefill plan as sm_89 / sm_86 would");
    return fail;
}

/* test_routes: the 8-bit d128 32-row split-key rule (sm80_launch.cu sm80_sk32_rows, sm80_sk32_wide) on
   the decode shapes it is for, which no CPU-checked case reaches (b 8 h 64/8 s_q 4 32k: 16k key
   blocks of 32 rows), planned on the H200 (V^T unless said): int8 24-32 rows take the wide tile
   (fp8 the 4-warp one), the 4-warp one under FLASHC_SM80_SK32_WIDE=0, with 64 rows (two tiles), on
   pages of 256 (no wide whole-page twin), on an odd key count (no wide general loader) and with V
   rows (no wide twin); the work threshold from both sides, b 1 h 64/8: SK32_MIN_BLOCKS_PER_SLOT x
   2 x the SMs 128-key blocks take the 32-row tile, one block fewer the 16-row tiles. Returns
   failures. */
#define SK32_MIN_BLOCKS_PER_SLOT 24 /* sm80_launch.cu SM80_SK32_MIN_BLOCKS_PER_SLOT */
#define SK32_CTAS_PER_SM 2          /* sm80_launch.cu SM80_CTAS_PER_SM_TARGET */
static int route_rule_checks(void)
{
    const int64_t min_keys = (int64_t)SK32_MIN_BLOCKS_PER_SLOT * SK32_CTAS_PER_SM * H200_SMS * 128 / 8;
    struct {
        int64_t b, s_k, page, v_rows;
        int64_t sq;
        const char *hook, *want, *want_fp8; /* hook: FLASHC_SM80_SK32_WIDE, or NULL; route_match patterns */
    } cases[] = {{8, 32768, 0, 0, 4, NULL, "_m32_sk8_f$", "_m32_sk_f$"},
                 {8, 32768, 0, 0, 3, NULL, "_m32_sk8_f$", "_m32_sk_f$"},
                 {8, 32768, 0, 0, 4, "0", "_m32_sk_f$", "_m32_sk_f$"},
                 {8, 32768, 0, 0, 8, NULL, "_m32_sk_f$", "_m32_sk_f$"},
                 {8, 32768, 256, 0, 4, NULL, "_m32_sk_wp$", "_m32_sk_wp$"},
                 {8, 32767, 0, 0, 4, NULL, "_m32_sk$", "_m32_sk$"},
                 {8, 32768, 0, 1, 4, NULL, "_m32_sk_*vr", "_m32_sk_*vr"},
                 {1, min_keys, 0, 0, 4, NULL, "_m32_sk8_f$", "_m32_sk_f$"},
                 {1, min_keys - 128, 0, 0, 4, NULL, "_m16_", "_m16_"}};
    const int n = (int)(sizeof cases / sizeof cases[0]);
    int fail = 0;
    for (int t = 0; t < 2; ++t) {
        const flashc_dtype dt = t ? FLASHC_DTYPE_INT8 : FLASHC_DTYPE_FP8_E4M3;
        for (int c = 0; c < n; ++c) {
            const int64_t b = cases[c].b, sk = cases[c].s_k, ps = cases[c].page, hkv = 8, hq = 64, d = 128, sq = cases[c].sq;
            const char *want = t ? cases[c].want : cases[c].want_fp8;
            flashc_attention_params p;
            route_fake_params(&p, dt, b, sq, sk, hq, hkv, d, ps, (int)cases[c].v_rows);
            if (cases[c].hook) setenv("FLASHC_SM80_SK32_WIDE", cases[c].hook, 1);
            const int v = flashc_sm80_route(&p, &ROUTE_DEVICE[ROUTE_FULL]);
            unsetenv("FLASHC_SM80_SK32_WIDE");
            const char *name = NULL;
            if (v >= 0) flashc_sm80_variant_launches(v, &name, NULL);
            if (!name || !route_match(name, want)) {
                printf("FAIL sk32 rule: %s b %lld s_q %lld s_k %lld pages %lld%s%s%s planned %s, not \"%s\"\n",
                       tu_dtype_name(dt), (long long)b, (long long)sq, (long long)sk, (long long)ps,
                       cases[c].v_rows ? " V rows" : "", cases[c].hook ? " SK32_WIDE=" : "",
                       cases[c].hook ? cases[c].hook : "", name ? name : "nothing", want);
                ++fail;
            }
        }
    }
    printf("sk32 rule: %s\n", fail ? "FAILED" : "8-bit d128 32-row decode plans the wide / 4-warp tiles it should");
    return fail;
}

/* test_routes: the Hopper fp8 decode tile's rule (sm90_api.cu sm90_decode_rule, sm90_decode.h) on the
   H200's plan: 33-64 packed rows from SM90_DEC_MIN_KEYS keys, fp8 d128 V^T on a dense cache or
   pages of a multiple of 128 keys, and the dev hook FLASHC_SM90_DECODE both ways. Pointers are never read. Returns failures. */
static int route_sm90_decode_checks(void)
{
    struct {
        flashc_dtype dt;
        int64_t b, sq, sk, hq, hkv, d, page, v_rows;
        int softcap;
        const char *hook;
        int want;
    } cases[] = {{FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 0, 0, 0, NULL, 1},  /* 64 rows */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 5, 8192, 64, 8, 128, 0, 0, 0, NULL, 1},   /* 40 rows, the fewest keys */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 5, 8191, 64, 8, 128, 0, 0, 0, NULL, 0},   /* one key short */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 4, 32768, 64, 8, 128, 0, 0, 0, NULL, 1},  /* 32 rows from 16k keys */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 3, 16384, 64, 8, 128, 0, 0, 0, NULL, 1},  /* 24 rows, the fewest keys */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 3, 16383, 64, 8, 128, 0, 0, 0, NULL, 0},  /* one key short: portable */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 2, 32768, 64, 8, 128, 0, 0, 0, NULL, 0},  /* 16 rows: portable */
                 {FLASHC_DTYPE_FP8_E4M3, 16, 4, 32768, 64, 8, 128, 0, 0, 0, NULL, 1}, /* 128 KV heads on 132 SMs */
                 {FLASHC_DTYPE_FP8_E4M3, 17, 4, 32768, 64, 8, 128, 0, 0, 0, NULL, 0}, /* 136: portable */
                 {FLASHC_DTYPE_FP8_E4M3, 17, 5, 32768, 64, 8, 128, 0, 0, 0, NULL, 1}, /* 40 rows: any grid */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 9, 32768, 64, 8, 128, 0, 0, 0, NULL, 0},  /* 72 rows: one tile holds 64 */
                 {FLASHC_DTYPE_INT8, 8, 8, 32768, 64, 8, 128, 0, 0, 0, NULL, 0},
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 64, 0, 0, 0, NULL, 0},
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 256, 0, 0, NULL, 1}, /* pages of 256 */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 64, 0, 0, NULL, 0},  /* pages split a block */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 0, 1, 0, NULL, 1},   /* V rows: the V-rows kernel */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 256, 1, 0, NULL, 1}, /* V rows, pages of 256 */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 4, 32768, 64, 8, 128, 0, 1, 0, NULL, 0},   /* V rows, 32 rows: portable */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 0, 0, 1, NULL, 0},   /* softcap */
                 {FLASHC_DTYPE_FP8_E4M3, 8, 8, 32768, 64, 8, 128, 0, 0, 0, "0", 0},
                 {FLASHC_DTYPE_FP8_E4M3, 2, 1, 304, 8, 8, 128, 0, 0, 0, "1", 1}};    /* 1 row, 304 keys */
    const int n = (int)(sizeof cases / sizeof cases[0]);
    int fail = 0;
    for (int c = 0; c < n; ++c) {
        flashc_attention_params p;
        route_fake_params(&p, cases[c].dt, cases[c].b, cases[c].sq, cases[c].sk, cases[c].hq, cases[c].hkv, cases[c].d,
                          cases[c].page, (int)cases[c].v_rows);
        if (cases[c].softcap) p.softcap = 30.0f;
        flashc_problem pr;
        if (!route_problem(&p, &pr, "sm90 decode rule", c)) {
            ++fail;
            continue;
        }
        if (c == 0 && flashc_sm90_check(&pr, &ROUTE_DEVICE[ROUTE_FULL]) == FLASHC_STATUS_NOT_SUPPORTED &&
            strstr(flashc_last_error(), "FLASHC_BUILD_SM90=OFF")) {
            printf("sm90 decode rule: not checked (FLASHC_BUILD_SM90=OFF)\n");
            return 0;
        }
        if (cases[c].hook) setenv("FLASHC_SM90_DECODE", cases[c].hook, 1);
        const int got = flashc_sm90_decode_route(&pr, &ROUTE_DEVICE[ROUTE_FULL]);
        unsetenv("FLASHC_SM90_DECODE");
        if (got != cases[c].want) {
            printf("FAIL sm90 decode rule: %s d%lld b %lld s_q %lld s_k %lld h %lld/%lld pages %lld%s%s%s%s: %s, "
                   "want %s\n",
                   tu_dtype_name(cases[c].dt), (long long)cases[c].d, (long long)cases[c].b, (long long)cases[c].sq,
                   (long long)cases[c].sk, (long long)cases[c].hq, (long long)cases[c].hkv, (long long)cases[c].page,
                   cases[c].v_rows ? " V rows" : "", cases[c].softcap ? " softcap" : "",
                   cases[c].hook ? " FLASHC_SM90_DECODE=" : "", cases[c].hook ? cases[c].hook : "",
                   got ? "decode tile" : "not the decode tile", cases[c].want ? "the decode tile" : "not it");
            ++fail;
        }
    }
    printf("sm90 decode rule: %s\n", fail ? "FAILED" : "fp8 d128 decode of 33-64 rows from 8k keys (V^T or V rows), "
                                                      "V^T 17-32 rows from 16k on one KV head per SM, takes the tile");
    return fail;
}

/* test_routes: the decode tile's key splits (sm90_api.cu sm90_decode_plan), read off the workspace
   each split's O / l and LSE take ([splits, b, h_kv, 64 rows, 128 + 1] f32; none for one split):
   one CTA per SM where an SM's share of the DRAM peak is at most what one CTA carries (the H100),
   two on the H200 and where the rate is unknown; FLASHC_SM90_DEC_SPLITS forces a count. */
#define SM90_DEC_WS_FLOATS_PER_HEAD (64 * (128 + 1))
static int route_sm90_decode_split_checks(void)
{
    const flashc_device_info h100 = route_device_with_dram(H100_DRAM_BYTES_PER_S);
    const flashc_device_info unknown = route_device_with_dram(0);
    struct {
        const flashc_device_info *dev;
        const char *dev_name, *hook; /* hook: FLASHC_SM90_DEC_SPLITS, or NULL */
        int64_t b, hq, hkv, sk, v_rows;
        int splits;
    } cases[] = {{&h100, "H100", NULL, 8, 64, 8, 32768, 0, 2},   /* 64 KV heads: 132 / 64 */
                 {&ROUTE_DEVICE[ROUTE_FULL], "H200", NULL, 8, 64, 8, 32768, 0, 4}, /* 264 / 64 */
                 {&unknown, "GPU of unknown bandwidth", NULL, 8, 64, 8, 32768, 0, 4},
                 {&h100, "H100", NULL, 16, 64, 8, 32768, 0, 1},
                 {&ROUTE_DEVICE[ROUTE_FULL], "H200", NULL, 16, 64, 8, 32768, 0, 2},
                 {&h100, "H100", NULL, 4, 64, 8, 32768, 0, 4},
                 {&h100, "H100", NULL, 8, 64, 8, 640, 0, 1},   /* 5 blocks: at least 4 per split */
                 {&h100, "H100", "3", 8, 64, 8, 32768, 0, 3},
                 {&ROUTE_DEVICE[ROUTE_FULL], "H200", "1", 8, 64, 8, 32768, 0, 1},
                 {&ROUTE_DEVICE[ROUTE_FULL], "H200", NULL, 8, 64, 8, 32768, 1, 2}}; /* V rows: one per SM */
    const int n = (int)(sizeof cases / sizeof cases[0]);
    int fail = 0;
    for (int c = 0; c < n; ++c) {
        flashc_attention_params p;
        route_fake_params(&p, FLASHC_DTYPE_FP8_E4M3, cases[c].b, 8, cases[c].sk, cases[c].hq, cases[c].hkv, 128, 0,
                          (int)cases[c].v_rows);
        flashc_problem pr;
        if (!route_problem(&p, &pr, "sm90 decode splits", c)) {
            ++fail;
            continue;
        }
        setenv("FLASHC_SM90_DECODE", "1", 1);
        if (cases[c].hook) setenv("FLASHC_SM90_DEC_SPLITS", cases[c].hook, 1);
        const int route = flashc_sm90_decode_route(&pr, cases[c].dev);
        const size_t ws = flashc_sm90_workspace_size(&pr, cases[c].dev);
        unsetenv("FLASHC_SM90_DEC_SPLITS");
        unsetenv("FLASHC_SM90_DECODE");
        if (!route && c == 0) {
            printf("sm90 decode splits: not checked (the decode tile does not take the case; FLASHC_BUILD_SM90=OFF?)\n");
            return 0;
        }
        const size_t per_split = (size_t)cases[c].b * cases[c].hkv * SM90_DEC_WS_FLOATS_PER_HEAD * sizeof(float);
        const size_t want = cases[c].splits > 1 ? cases[c].splits * per_split : 0;
        if (!route || ws != want) {
            printf("FAIL sm90 decode splits: b %lld h %lld/%lld s_k %lld%s on the %s%s%s: %s, %zu bytes of workspace, "
                   "want %d splits (%zu bytes)\n", (long long)cases[c].b, (long long)cases[c].hq,
                   (long long)cases[c].hkv, (long long)cases[c].sk, cases[c].v_rows ? " V rows" : "", cases[c].dev_name,
                   cases[c].hook ? ", FLASHC_SM90_DEC_SPLITS=" : "", cases[c].hook ? cases[c].hook : "",
                   route ? "decode tile" : "not the decode tile", ws, cases[c].splits, want);
            ++fail;
        }
    }
    printf("sm90 decode splits: %s\n", fail ? "FAILED" : "one CTA per SM where its DRAM share is small, two otherwise");
    return fail;
}

/* ---- One case ---------------------------------------------------------------------------- */
static void run_case(tcase tc)
{
    if (g_filter && !strstr(tc.name, g_filter)) return;
    if (g_context_lost_in[0]) {
        ++g_cases_not_run;
        return;
    }
    snprintf(g_case_now, sizeof g_case_now, "%s", tc.name);
    ++g_cases_run;
    if (tc.b < 1 || tc.b > MAX_B) { /* the per-sequence arrays hold MAX_B entries */
        printf("FAIL %s: b = %d outside the harness's 1..%d (MAX_B)\n", tc.name, tc.b, MAX_B);
        ++g_setup_fail;
        return;
    }
    const int is8 = is_8bit(tc.dt);
    inputs in, in16;
    memset(&in, 0, sizeof in);
    double *want = NULL, *want_lse = NULL, *want_orig = NULL, *want_orig_lse = NULL;
    int64_t n_out = 0, n_lse = 0;
    double base_rms = 0;
    memset(&in16, 0, sizeof in16);
    if (is8) {
        tcase t16 = tc;
        t16.dt = FLASHC_DTYPE_BF16;
        t16.v_transposed = 0;
        if (build_inputs(&t16, &in16, FLASHC_DTYPE_BF16) ||
            (!ROUTES_ONLY && cpu_reference(&t16, &in16, &want_orig, &want_orig_lse, &n_out, &n_lse)))
            goto setup_fail;
        memset(&in, 0, sizeof in);
        in = in16; /* seqlens, page table, bias, alibi are shared; q/k/v are replaced */
        in.page_table = NULL;
        memset(&in.q, 0, sizeof in.q);
        memset(&in.k, 0, sizeof in.k);
        memset(&in.v, 0, sizeof in.v);
        memset(&in.bias, 0, sizeof in.bias);
        memset(&in.alibi, 0, sizeof in.alibi);
        int g = tc.hq / tc.hkv;
        tu_tensor v16t;
        memset(&v16t, 0, sizeof v16t);
        const tu_tensor *vsrc = &in16.v;
        if (tc.v_transposed) {
            if (transpose_v(&tc, &in16, &v16t)) goto setup_fail;
            vsrc = &v16t;
        }
        /* index of the head dimension: q [b, s, h, d] | [total, h, d]; k [b, s, h, d] | [total, h, d]
           | [pages, ps, h, d]; V^T [b | pages, h, d, s] | [h, d, total]; V as k */
        const int q_hdim = tc.q_varlen ? 1 : 2, k_hdim = tc.kv == KV_VARLEN ? 1 : 2;
        const int v_hdim = tc.v_transposed ? (tc.kv == KV_VARLEN ? 0 : 1) : k_hdim;
        const int kv_batched = tc.kv == KV_BATCHED;
        if (quantize(&in16.q, &in.q, &in.qd, tc.dt, tc.b, tc.hkv, g, q_hdim, !tc.q_varlen, 0) ||
            quantize(&in16.k, &in.k, &in.kd, tc.dt, tc.b, tc.hkv, 1, k_hdim, kv_batched, 0) ||
            quantize(vsrc, &in.v, &in.vd, tc.dt, tc.b, tc.hkv, 1, v_hdim, kv_batched, tc.v_transposed && tc.vtpad))
            goto setup_fail;
        if (v16t.alloc) tu_tensor_free(&v16t);
        in.bias = in16.bias;
        in.alibi = in16.alibi;
        in.page_table = in16.page_table;
        /* the exact answer on the quantized values, and the baseline error of quantization */
        if (!ROUTES_ONLY) {
            if (cpu_reference(&tc, &in, &want, &want_lse, &n_out, &n_lse)) goto setup_fail;
            base_rms = rel_rms(want, want_orig, n_out);
        }
    } else {
        if (build_inputs(&tc, &in, tc.dt) ||
            (!ROUTES_ONLY && cpu_reference(&tc, &in, &want, &want_lse, &n_out, &n_lse)))
            goto setup_fail;
    }
    if (ROUTES_ONLY) {
        if (route_case(&tc, &in)) goto setup_fail;
        goto cleanup;
    }
    if (tc.poison_unused && poison_unused_keys(&tc, &in)) goto setup_fail;
#ifdef TEST_GPU_DRYRUN /* developer aid: exercise case building and the CPU oracle without a GPU */
    if (is8 && tu_verbose()) printf("dry %s: quantization baseline rel RMS %.4f\n", tc.name, base_rms);
    ++g_be_pass[0];
    goto cleanup;
#endif
    ptrs dp;
    if (upload_ptrs(&tc, &in, &dp)) goto setup_fail;
    for (int be = 0; be < BE_COUNT; ++be) {
        if (!g_be_enabled[be]) continue;
        int r = run_backend(&tc, &in, &dp, be, want, want_lse, n_out, n_lse, want_orig, base_rms);
        if (r > 0) ++g_be_pass[be];
        else if (r == 0) ++g_be_fail[be];
        else ++g_be_skip[be];
    }
    goto cleanup;
setup_fail:
    printf("FAIL %s: case setup failed\n", tc.name);
    ++g_setup_fail;
cleanup:
    dev_free_all();
    if (is8) {
        /* bias, alibi and page table belong to in16 */
        memset(&in.bias, 0, sizeof in.bias);
        memset(&in.alibi, 0, sizeof in.alibi);
        in.page_table = NULL;
        inputs_free(&in16);
    }
    inputs_free(&in);
    free(want);
    free(want_lse);
    free(want_orig);
    free(want_orig_lse);
}

/* ---- The grid of cases ------------------------------------------------------------------- */
static void named(tcase *c, const char *what)
{
    snprintf(c->name, sizeof c->name, "%s d%d %s", tu_dtype_name(c->dt), c->d, what);
}

/* 8-bit decode of 20-64 packed rows on the split-key routes, shared by the feature grid (the default
   route: 16-row CTAs at these sizes) and sm80_8bit_sk32_cases (the 32-row tiles forced); tag names
   the route in the case names. Tails, split and unsplit keys, seqused_k, causal, window, softcap,
   ALiBi, bias, LSE, f16 output, whole-block pages of 256 keys. */
static void splitk8_row_cases(flashc_dtype dt, int d, const char *tag)
{
    tcase c;
    char what[80];
    c = base_case(dt, d); c.b = 3; c.sq = 4; c.sk = 4097; c.hkv = 2; c.hq = 16;
    snprintf(what, sizeof what, "decode8 %s 32 rows sk4097", tag); named(&c, what); run_case(c);
    c = base_case(dt, d); c.b = 3; c.sq = 3; c.sk = 1777; c.hkv = 1; c.hq = 8; c.seqused = 1; c.causal = 1; c.wl = 300;
    snprintf(what, sizeof what, "decode8 %s 24 rows seqused causal window", tag); named(&c, what); run_case(c);
    c = base_case(dt, d); c.b = 2; c.sq = 5; c.sk = 999; c.hkv = 2; c.hq = 8; c.softcap = 6.0f;
    c.alibi = ALIBI_BH; c.bias = BIAS_FULL; c.lse = 1;
    snprintf(what, sizeof what, "decode8 %s 20 rows softcap alibi bias", tag); named(&c, what); run_case(c);
    c = base_case(dt, d); c.b = 8; c.sq = 6; c.sk = 150; c.hkv = 4; c.hq = 16; c.out_dt = FLASHC_DTYPE_F16;
    snprintf(what, sizeof what, "decode8 %s 24 rows sk150 no split", tag); named(&c, what); run_case(c);
    c = base_case(dt, d); c.b = 3; c.sq = 7; c.sk = 1501; c.hkv = 2; c.hq = 16; c.causal = 1;
    { int lk[3] = {1500, 3, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
    snprintf(what, sizeof what, "decode8 %s 56 rows causal", tag); named(&c, what); run_case(c);
    c = base_case(dt, d); c.b = 3; c.sq = 8; c.hkv = 2; c.hq = 16; c.kv = KV_PAGED; c.page_size = 256; c.causal = 1;
    c.wl = 600; c.alibi = ALIBI_BH;
    { int lk[3] = {1500, 3, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
    snprintf(what, sizeof what, "decode8 %s 64 rows paged ps256 causal window alibi", tag); named(&c, what); run_case(c);
}

static void feature_cases(flashc_dtype dt, int d)
{
    tcase c;
    c = base_case(dt, d); c.extra = 1; named(&c, "plain"); run_case(c);
    c = base_case(dt, d); c.lse = 0; c.pad = 1; named(&c, "plain padded no-lse"); run_case(c);
    c = base_case(dt, d); c.causal = 1; c.sq = 77; c.sk = 190; named(&c, "causal sq<sk"); run_case(c);
    c = base_case(dt, d); c.causal = 1; c.sq = 150; c.sk = 70; named(&c, "causal sq>sk"); run_case(c);
    c = base_case(dt, d); c.wl = 33; c.wr = 17; c.sq = c.sk = 160; named(&c, "window 33/17"); run_case(c);
    c = base_case(dt, d); c.wl = 40; c.causal = 1; c.sq = 130; c.sk = 150; named(&c, "window+causal"); run_case(c);
    c = base_case(dt, d); c.softcap = 5.0f; named(&c, "softcap"); run_case(c);
    c = base_case(dt, d); c.bias = BIAS_FULL; named(&c, "bias f32 full"); run_case(c);
    c = base_case(dt, d); c.bias = BIAS_BCAST_B; c.bias_dt = FLASHC_DTYPE_BF16; named(&c, "bias bf16 bcast-b"); run_case(c);
    c = base_case(dt, d); c.bias = BIAS_BCAST_H; c.bias_dt = FLASHC_DTYPE_F16; c.causal = 1; named(&c, "bias f16 bcast-h causal"); run_case(c);
    c = base_case(dt, d); c.bias = BIAS_BCAST_BH; named(&c, "bias f32 bcast-bh"); run_case(c);
    c = base_case(dt, d); c.alibi = ALIBI_H; c.causal = 1; named(&c, "alibi [h] causal"); run_case(c);
    c = base_case(dt, d); c.alibi = ALIBI_BH; c.softcap = 8.0f; named(&c, "alibi [b,h] softcap"); run_case(c);
    c = base_case(dt, d); c.hq = 8; c.hkv = 2; named(&c, "gqa 4"); run_case(c);
    c = base_case(dt, d); c.hq = 8; c.hkv = 1; c.causal = 1; named(&c, "mqa 8 causal"); run_case(c);
    c = base_case(dt, d); c.hq = 4; c.hkv = 4; c.sq = 33; named(&c, "gqa 1 short"); run_case(c);
    c = base_case(dt, d); c.scale = 0.3f; c.softcap = 4.0f; named(&c, "scale 0.3 softcap"); run_case(c);
    c = base_case(dt, d); c.scale = 0.05f; c.causal = 1; named(&c, "scale 0.05 causal"); run_case(c);
    c = base_case(dt, d); c.wl = 50; named(&c, "window left only"); run_case(c);
    c = base_case(dt, d); c.wr = 10; c.sq = 200; c.sk = 90; named(&c, "window right only sq>sk"); run_case(c);
    c = base_case(dt, d); c.out_dt = c.out_dt == FLASHC_DTYPE_BF16 ? FLASHC_DTYPE_F16 : FLASHC_DTYPE_BF16;
    named(&c, "other output dtype"); run_case(c);
    c = base_case(dt, d); c.bias = BIAS_EXTENT1_B; c.bias_dt = FLASHC_DTYPE_BF16; named(&c, "bias bf16 extent-1 batch"); run_case(c);
    c = base_case(dt, d); c.sq = 1; c.sk = 1500; c.hq = c.hkv = 3; named(&c, "decode sq1 mha"); run_case(c);
    c = base_case(dt, d); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.seqused = 1; c.causal = 1;
    { int lq[3] = {5, 40, 1}, lk[3] = {90, 300, 0}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "varlen seqused_k causal"); run_case(c);
    /* long queries, short keys: big tiles without split-KV */
    c = base_case(dt, d); c.b = 3; c.hq = 6; c.hkv = 6; c.sq = 300; c.sk = 60; c.causal = 1; named(&c, "short keys"); run_case(c);
    c = base_case(dt, d); c.hq = 8; c.hkv = 2; c.bias = BIAS_FULL; c.alibi = ALIBI_H; c.wl = 20; c.wr = 5;
    named(&c, "gqa 4 bias alibi window"); run_case(c);
    /* varlen with zero-length sequences on both sides */
    c = base_case(dt, d); c.b = 4; c.q_varlen = 1; c.kv = KV_VARLEN;
    { int lq[4] = {37, 0, 64, 100}, lk[4] = {50, 20, 0, 129}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
    c.extra = 1; named(&c, "varlen"); run_case(c);
    c.causal = 1; c.hq = 4; c.hkv = 2; c.extra = 0; named(&c, "varlen causal gqa"); run_case(c);
    c.causal = 0; c.bias = BIAS_FULL; c.alibi = ALIBI_BH; named(&c, "varlen bias alibi"); run_case(c);
    c = base_case(dt, d); c.seqused = 1; c.causal = 1; named(&c, "seqused_k causal"); run_case(c);
    c = base_case(dt, d); c.q_varlen = 1; c.b = 3;
    { int lq[3] = {1, 17, 70}; memcpy(c.seqlens_q, lq, sizeof lq); }
    named(&c, "varlen q, batched k"); run_case(c);
    /* paged KV */
    const int page_sizes[4] = {1, 16, 64, 257};
    for (int i = 0; i < 4; ++i) {
        if (g_quick && i != 1 && i != 3) continue;
        c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = page_sizes[i]; c.hq = 4; c.hkv = 2;
        { int lk[3] = {300, 0, 517}; memcpy(c.seqlens_k, lk, sizeof lk); }
        c.sq = 20; c.causal = i & 1;
        char what[64];
        snprintf(what, sizeof what, "paged ps%d%s", page_sizes[i], c.causal ? " causal" : "");
        named(&c, what); run_case(c);
    }
    /* paged prefill with 128-row tiles: the general-loader prefill tiles (contiguous K/V takes the
       fast-loader-only twins) */
    c = base_case(dt, d); c.b = 2; c.kv = KV_PAGED; c.page_size = 64; c.hq = 4; c.hkv = 2; c.sq = 150;
    { int lk[2] = {333, 190}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "paged prefill ps64"); run_case(c);
    c.causal = 1; named(&c, "paged prefill ps64 causal"); run_case(c);
    /* the same prefill, contiguous (fast-loader-only twins: _f, causal _lm_f) and with V's row stride
       unlike K's (general tiles: plain, causal _lm) */
    c.kv = KV_VARLEN; c.causal = 0; named(&c, "varlen prefill"); run_case(c);
    c.causal = 1; named(&c, "varlen prefill causal"); run_case(c);
    c.vpad = 1; c.causal = 0; named(&c, "varlen prefill v-padded"); run_case(c);
    c.causal = 1; named(&c, "varlen prefill v-padded causal"); run_case(c);
    c = base_case(dt, d); c.vpad = 1; c.sq = 150; c.sk = 170; c.wl = 60; c.wr = 0; named(&c, "v-padded window"); run_case(c);
    /* decode: few queries over a long cache (split-KV, GQA packing) */
    for (int sq = 1; sq <= 8; sq += g_quick ? 7 : 3) {
        c = base_case(dt, d); c.b = 2; c.sq = sq; c.sk = 2049; c.hq = 8; c.hkv = 1; c.causal = sq > 1;
        char what[64];
        snprintf(what, sizeof what, "decode sq%d sk2049 mqa", sq);
        named(&c, what); run_case(c);
    }
    c = base_case(dt, d); c.b = 1; c.sq = 4; c.sk = 3001; c.hq = 8; c.hkv = 2; c.lse = 1; c.extra = 1;
    named(&c, "decode sq4 sk3001 gqa4"); run_case(c);
    c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = 16; c.sq = 2; c.hq = 8; c.hkv = 2;
    { int lk[3] = {1500, 3, 2100}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode paged ps16"); run_case(c);
    /* sm80 split-key decode tiles (sm_90; rows = s_q x group: 16-bit 17..32, 8-bit <= 16): odd key
       counts (a partly masked last block in one warp's slice only), pages holding whole key blocks,
       seqused_k, windows, score transforms, no split-KV */
    {
        const int is8 = is_8bit(dt), g = is8 ? 4 : 8;
        c = base_case(dt, d); c.b = 3; c.sq = is8 ? 1 : 3; c.sk = 4097; c.hkv = 4; c.hq = 4 * g;
        named(&c, "decode splitk sk4097"); run_case(c);
        c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = 256; c.sq = is8 ? 2 : 4; c.hkv = 2; c.hq = 2 * g;
        c.causal = 1;
        { int lk[3] = {1500, 3, 2100}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode splitk paged ps256 causal"); run_case(c);
        c = base_case(dt, d); c.b = 3; c.sq = 3; c.sk = 1777; c.hkv = 1; c.hq = g; c.seqused = 1; c.causal = 1; c.wl = 300;
        named(&c, "decode splitk seqused window"); run_case(c);
        c = base_case(dt, d); c.b = 2; c.sq = is8 ? 1 : 3; c.sk = 999; c.hkv = 2; c.hq = 2 * g; c.softcap = 6.0f;
        c.alibi = ALIBI_BH; c.bias = BIAS_FULL;
        named(&c, "decode splitk softcap alibi bias"); run_case(c);
        c = base_case(dt, d); c.b = 2; c.sq = is8 ? 4 : 4; c.sk = 1333; c.hkv = 2; c.hq = 2 * g; c.causal = 1; c.extra = 1;
        named(&c, "decode splitk causal extra"); run_case(c);
        c = base_case(dt, d); c.b = 8; c.sq = is8 ? 2 : 3; c.sk = 150; c.hkv = 4; c.hq = 4 * g; c.out_dt = FLASHC_DTYPE_F16;
        named(&c, "decode splitk sk150 no split"); run_case(c);
    }
    /* 16-bit split-key tile on pages holding whole key blocks (sm_90: the whole-page twin _sk_wp,
       its lean loader from a per-block base), <= 16 rows: pages of 64 (d128's block), 128 and 384
       keys (d64's block is 128), an empty sequence, causal and window */
    if (dt != FLASHC_DTYPE_FP8_E4M3 && dt != FLASHC_DTYPE_INT8) {
        const int psw[3] = {64, 128, 384};
        for (int i = 0; i < 3; ++i) {
            const int g = i == 2 ? 8 : 4;
            c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = psw[i]; c.sq = i == 0 ? 1 : 2;
            c.hkv = 2; c.hq = 2 * g; c.causal = c.sq > 1; c.wl = i == 2 ? 500 : -1;
            { int lk[3] = {1500, 0, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
            char what[80];
            snprintf(what, sizeof what, "decode paged whole pages ps%d %d rows%s", psw[i], c.sq * g, c.wl >= 0 ? " window" : "");
            named(&c, what); run_case(c);
        }
    }
    /* 16-bit pages of 8 / 16 / 32 keys (and 64 in d64's 128-key block) inside a key block (sm_90:
       the deep ring's page-sub twins at <= 16 rows, the split-key page-sub twins _sk_pg at 17-32;
       d128's pages of 64 hold whole blocks), an empty sequence, causal, window, LSE */
    if (dt != FLASHC_DTYPE_FP8_E4M3 && dt != FLASHC_DTYPE_INT8) {
        const int pss[4] = {8, 16, 32, 64};
        for (int i = 0; i < 4; ++i)
            for (int g = 4; g <= 8; g += 4) {
                c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = pss[i]; c.sq = g == 8 ? 4 : 1 + i;
                c.hkv = 2; c.hq = 2 * g; c.causal = c.sq > 1; c.wl = i == 1 ? 700 : -1; c.lse = i == 2;
                { int lk[3] = {1500, 0, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
                char what[80];
                snprintf(what, sizeof what, "decode paged sub ps%d %d rows%s", pss[i], c.sq * g, c.wl >= 0 ? " window" : "");
                named(&c, what); run_case(c);
            }
    }
    /* 8-bit split-key routes (sm_90): 17-64 rows as two to four 16-row CTAs per KV head (the last
       tile partly padded at 20 / 24 / 40 / 56 rows; at these sizes the 32-row tiles' work rule
       keeps them off, see sm80_8bit_sk32_cases), and the page-sub twins (pages of 16 / 32 / 64 keys inside a
       128-key block, rows <= 16 and 17-32; pages of 16 take the row-pair _sk_pg16 twins: last pages of
       12, 3 and 5 keys); pages of 256 hold whole blocks, pages of 257 keep the 64-row ring's per-row
       path */
    if (dt == FLASHC_DTYPE_FP8_E4M3 || dt == FLASHC_DTYPE_INT8) {
        splitk8_row_cases(dt, d, "splitk");
        c = base_case(dt, d); c.b = 2; c.sq = 4; c.sk = 999; c.hkv = 2; c.hq = 8; c.causal = 1; c.wl = 200;
        named(&c, "decode8 splitk 16 rows sq4 causal window"); run_case(c);
        const int ps8[5] = {16, 32, 64, 256, 257};
        for (int i = 0; i < 5; ++i)
            for (int g = 4; g <= 8; g += 4) {
                c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = ps8[i]; c.sq = g == 8 ? 4 : 1 + i;
                c.hkv = 2; c.hq = 2 * g; c.causal = c.sq > 1; c.wl = i == 2 ? 700 : -1;
                { int lk[3] = {1500, 3, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
                char what[80];
                snprintf(what, sizeof what, "decode8 paged ps%d %d rows%s", ps8[i], c.sq * g, c.wl >= 0 ? " window" : "");
                named(&c, what); run_case(c);
            }
        c = base_case(dt, d); c.b = MAX_B; c.kv = KV_PAGED; c.page_size = 64; c.sq = 4; c.hkv = 8; c.hq = 64;
        for (int i = 0; i < MAX_B; ++i) c.seqlens_k[i] = 100 + 97 * i;
        named(&c, "decode8 paged ps64 32 rows short"); run_case(c);
        /* 33-64 rows on three / four split-key CTAs per KV head (the last one partly padded at 40
           rows; 56 and 64 rows: splitk8_row_cases); with pages of 16 keys at most three (48 rows):
           56 rows keep the deep ring */
        const int rows8[3][3] = {{5, 0, 0}, {7, 16, 1}, {6, 16, 0}}; /* s_q, page size, causal */
        for (int i = 0; i < 3; ++i) {
            c = base_case(dt, d); c.b = 3; c.sq = rows8[i][0]; c.hkv = 2; c.hq = 16; c.causal = rows8[i][2];
            if (rows8[i][1]) { c.kv = KV_PAGED; c.page_size = rows8[i][1]; } else c.sk = 1501;
            { int lk[3] = {1500, 3, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
            if (i == 0) { c.softcap = 6.0f; c.lse = 1; }
            char what[80];
            snprintf(what, sizeof what, "decode8 splitk %d rows%s", c.sq * 8, rows8[i][1] ? " paged ps16" : "");
            named(&c, what); run_case(c);
        }
    }
    /* pages of 8 and 32 keys: whole pages inside a key block (sm80's page-sub variants) */
    for (int ps = 8; ps <= 32; ps *= 4) {
        c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = ps; c.sq = 1; c.hq = 8; c.hkv = 2;
        { int lk[3] = {1000, 77, 2050}; memcpy(c.seqlens_k, lk, sizeof lk); }
        char what[64];
        snprintf(what, sizeof what, "decode paged ps%d", ps);
        named(&c, what); run_case(c);
    }
}

/* 8-bit cases beyond the feature grid (which runs with V^T, and in the V-rows units with V in K's
   layout): both layouts side by side, and 16-byte-aligned V^T rows take the cp.async fast path (the
   grid's odd s_k take the gather path). */
static void eight_bit_cases(flashc_dtype dt, int d)
{
    tcase c;
    for (int vt = 0; vt <= 1; ++vt) {
        c = base_case(dt, d); c.v_transposed = vt; c.hq = 4; c.hkv = 2; c.sk = 144;
        named(&c, vt ? "aligned v_transposed" : "v in k layout"); run_case(c);
        c = base_case(dt, d); c.v_transposed = vt; c.causal = 1; c.sq = 64; c.sk = 208;
        named(&c, vt ? "aligned causal v_transposed" : "v in k layout causal"); run_case(c);
    }
}

/* The Hopper fp8 kernels on the shapes of their tiles' edges: key tails inside a 128-key block and a
   lone partial block, query tails, GQA / MQA, causal with key-less rows (s_q > s_k), several key
   blocks and several tiles per block (the rings through many phases), both outputs, LSE on and
   off, per-head descales, and the tail split forced. v_rows 0: V^T through TMA, rows padded to
   16-byte multiples and the padding poisoned; 1: V in K's layout, which the kernel transposes in
   shared memory (sm90_vt8.h; any s_k, the zero-filled rows past s_k in the last block). Every
   backend runs them (the portable path takes both layouts). */
static tcase sm90_fp8_case(int d, int v_rows)
{
    tcase c = base_case(FLASHC_DTYPE_FP8_E4M3, d);
    if (v_rows) c.v_transposed = 0;
    else c.vtpad = 1;
    return c;
}

static void sm90_fp8_named(tcase *c, int v_rows, const char *what)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s %s", v_rows ? "fp8 v rows" : "fp8 vt padded", what);
    named(c, buf);
}

static void sm90_fp8_layout_cases(int v_rows)
{
    const int dims[3] = {64, 128, 256};
    tcase c;
    for (int k = 0; k < 3; ++k) {
        const int d = dims[k];
        c = sm90_fp8_case(d, v_rows);
        sm90_fp8_named(&c, v_rows, "plain"); run_case(c);
        c = sm90_fp8_case(d, v_rows); c.sk = 17; c.sq = 33;
        sm90_fp8_named(&c, v_rows, "one partial block"); run_case(c);
        c = sm90_fp8_case(d, v_rows); c.causal = 1; c.sq = 200; c.sk = 333; c.hq = 8; c.hkv = 2;
        sm90_fp8_named(&c, v_rows, "causal gqa 4"); run_case(c);
        c = sm90_fp8_case(d, v_rows); c.causal = 1; c.sq = 300; c.sk = 129;
        sm90_fp8_named(&c, v_rows, "causal key-less rows"); run_case(c);
        c = sm90_fp8_case(d, v_rows); c.b = 1; c.sq = 77; c.sk = 1001; c.hq = 6; c.hkv = 1;
        c.out_dt = FLASHC_DTYPE_F16; c.lse = 0;
        sm90_fp8_named(&c, v_rows, "mqa odd keys f16 out no-lse"); run_case(c);
        if (g_quick) continue;
        c = sm90_fp8_case(d, v_rows); c.b = 3; c.sq = 700; c.sk = 777; c.hq = 4; c.hkv = 2;
        sm90_fp8_named(&c, v_rows, "many tiles"); run_case(c);
        setenv("FLASHC_SM90_TAIL_SPLIT", "force", 1);
        c = sm90_fp8_case(d, v_rows); c.sq = 300; c.sk = 1000; c.hq = 4; c.hkv = 2;
        sm90_fp8_named(&c, v_rows, "tail split"); run_case(c);
        unsetenv("FLASHC_SM90_TAIL_SPLIT");
        c = sm90_fp8_case(d, v_rows); c.b = 1; c.sq = c.sk = 1024; c.causal = 1;
        sm90_fp8_named(&c, v_rows, "s1024 causal"); run_case(c);
    }
}

/* The Hopper fp8 decode tile (sm90_decode.cu), forced onto small shapes by its dev hook
   (FLASHC_SM90_DECODE=1): 1-64 packed rows, GQA 1-64, causal and not, key tails (V^T rows padded
   to 16 bytes and the padding poisoned), split keys (the combine) and one split, key-less rows
   (causal s_q > s_k), f16 output, LSE on and off, per-head descales, seqused_k and pages, both L2
   policies of the loads, both orders of the key splits' blocks (runs, interleaved) and odd split
   counts forced. The auto
   and sm90 backends run the tile; the portable one the same cases beside it. */
static void sm90_decode_cases(void)
{
    struct {
        int b, sq, sk, hq, hkv, causal, f16, lse;
        const char *what;
    } cases[] = {{3, 8, 4097, 16, 2, 1, 0, 1, "64 rows causal split"},
                 {2, 5, 1500, 16, 2, 0, 1, 0, "40 rows f16 no-lse split"},
                 {2, 1, 300, 16, 2, 0, 0, 1, "8 rows one split"},
                 {1, 1, 2000, 64, 1, 1, 0, 1, "mqa 64 rows causal"},
                 {2, 8, 129, 8, 2, 1, 0, 1, "32 rows two blocks tail"},
                 {2, 8, 5, 16, 2, 1, 0, 1, "key-less rows sq>sk"},
                 {2, 3, 3001, 24, 3, 0, 0, 1, "24 rows gqa 8 odd keys"},
                 {1, 2, 777, 6, 6, 1, 1, 1, "mha 2 rows causal f16"}};
    setenv("FLASHC_SM90_DECODE", "1", 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tcase c = base_case(FLASHC_DTYPE_FP8_E4M3, 128);
        c.vtpad = 1;
        c.b = cases[i].b, c.sq = cases[i].sq, c.sk = cases[i].sk, c.hq = cases[i].hq, c.hkv = cases[i].hkv;
        c.causal = cases[i].causal, c.lse = cases[i].lse;
        if (cases[i].f16) c.out_dt = FLASHC_DTYPE_F16;
        c.sm90_runs = c.sm90_decode = 1;
        /* every other case with the K / V^T loads evict-normal (the policy of caches over 4x the
           L2, which no case here reaches); every other pair with the splits interleaved */
        const int interleave = (int)(i / 2) % 2, solo = (int)(i / 4) % 2;
        if (i % 2) setenv("FLASHC_SM90_DEC_EVICT_FIRST", "0", 1);
        setenv("FLASHC_SM90_DEC_INTERLEAVE", interleave ? "1" : "0", 1);
        setenv("FLASHC_SM90_DEC_SOLO", solo ? "1" : "0", 1);
        char what[96];
        snprintf(what, sizeof what, "sm90 decode %s%s%s%s", cases[i].what, i % 2 ? " evict-normal" : "",
                 interleave ? " interleaved" : "", solo ? " solo" : "");
        named(&c, what);
        run_case(c);
        unsetenv("FLASHC_SM90_DEC_EVICT_FIRST");
    }
    /* key splits forced to odd counts (FLASHC_SM90_DEC_SPLITS; the planner picks 1, 2 or 4 on
       full-size grids): shares of unequal length, in runs (pair kernel) and interleaved (solo) */
    const struct { int splits, interleave, sq, sk; } forced[2] = {{3, 0, 8, 4097}, {5, 1, 3, 3001}};
    for (int i = 0; i < 2; ++i) {
        tcase c = base_case(FLASHC_DTYPE_FP8_E4M3, 128);
        c.vtpad = 1; c.b = 2; c.sq = forced[i].sq; c.sk = forced[i].sk; c.hq = 16; c.hkv = 2; c.causal = !i;
        c.sm90_runs = c.sm90_decode = 1;
        char n[8], what[96];
        snprintf(n, sizeof n, "%d", forced[i].splits);
        setenv("FLASHC_SM90_DEC_SPLITS", n, 1);
        setenv("FLASHC_SM90_DEC_INTERLEAVE", forced[i].interleave ? "1" : "0", 1);
        setenv("FLASHC_SM90_DEC_SOLO", forced[i].interleave ? "1" : "0", 1);
        snprintf(what, sizeof what, "sm90 decode %d rows %d splits forced%s", c.sq * 8, forced[i].splits,
                 forced[i].interleave ? " interleaved solo" : "");
        named(&c, what);
        run_case(c);
    }
    unsetenv("FLASHC_SM90_DEC_SPLITS");
    unsetenv("FLASHC_SM90_DEC_INTERLEAVE");
    /* a KV cache: seqused_k over a dense cache and pages of 128 / 256 keys, with NaN in every key
       no sequence uses (the tile zeroes V^T past each sequence), page-table entries past a
       sequence -1, sequences of 0-3 keys, the last block of a sequence partly in its page */
    tcase c = base_case(FLASHC_DTYPE_FP8_E4M3, 128);
    c.vtpad = 1; c.b = 3; c.sq = 8; c.sk = 3000; c.hq = 16; c.hkv = 2; c.causal = 1; c.seqused = 1;
    c.poison_unused = 1; c.sm90_runs = c.sm90_decode = 1;
    setenv("FLASHC_SM90_DEC_INTERLEAVE", "0", 1);
    setenv("FLASHC_SM90_DEC_SOLO", "0", 1);
    named(&c, "sm90 decode 64 rows seqused causal poisoned"); run_case(c);
    setenv("FLASHC_SM90_DEC_INTERLEAVE", "1", 1);
    setenv("FLASHC_SM90_DEC_SOLO", "1", 1);
    named(&c, "sm90 decode 64 rows seqused causal poisoned interleaved solo"); run_case(c);
    const int pages[2] = {128, 256};
    for (int i = 0; i < 2; ++i) {
        /* pages of 128 with the splits interleaved, of 256 in runs */
        setenv("FLASHC_SM90_DEC_INTERLEAVE", i ? "0" : "1", 1);
        setenv("FLASHC_SM90_DEC_SOLO", i ? "1" : "0", 1); /* pages of 256 on the solo kernel */
        c = base_case(FLASHC_DTYPE_FP8_E4M3, 128);
        c.b = 3; c.sq = i ? 5 : 6; c.hq = 16; c.hkv = 2; c.kv = KV_PAGED; c.page_size = pages[i];
        c.poison_unused = 1; c.pt_spare = 1; c.sm90_runs = c.sm90_decode = 1;
        if (i) c.out_dt = FLASHC_DTYPE_F16, c.lse = 0;
        else c.causal = 1;
        int lk[3] = {1500, 3, 2101};
        if (i) lk[0] = 0, lk[1] = 700, lk[2] = 2049;
        memcpy(c.seqlens_k, lk, sizeof lk);
        char what[96];
        snprintf(what, sizeof what, "sm90 decode %d rows paged ps%d%s poisoned%s", c.sq * 8, pages[i],
                 i ? " f16 no-lse" : " causal", i ? " solo" : " interleaved");
        named(&c, what); run_case(c);
    }
    unsetenv("FLASHC_SM90_DEC_INTERLEAVE");
    unsetenv("FLASHC_SM90_DEC_SOLO");
    unsetenv("FLASHC_SM90_DECODE");
}

/* The decode tile's cases with V in K's layout: the V-rows kernel (one CTA per SM, three
   transposer warps) whatever the solo hook says. */
static void sm90_decode_v_rows_cases(void)
{
    g_v_rows = 1;
    sm90_decode_cases();
    g_v_rows = 0;
}

static void sm90_fp8_cases(void) { sm90_fp8_layout_cases(0); }
static void sm90_fp8_v_rows_cases(void) { sm90_fp8_layout_cases(1); }

/* Sliding windows on the Hopper path over many key blocks: each tile's keys run from
   fwd_first_n_block, and its masked blocks come first (diagonal, s_k tail) and last (the window's
   left edge) with unmasked ones between, so the consumer's loop enters the masked step twice;
   windows narrower than a key block, key-less rows and tiles, s_q > s_k and s_q < s_k. Every
   backend runs them. */
static void sm90_window_cases(void)
{
    const int dims[3] = {64, 128, 256};
    tcase c;
    for (int k = 0; k < 3; ++k) {
        const int d = dims[k];
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 1; c.sq = c.sk = 1500; c.causal = 1; c.wl = 300;
        named(&c, "sm90 window causal 300"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.sq = 700; c.sk = 1100; c.wl = 200; c.wr = 150; c.hq = 4; c.hkv = 2;
        named(&c, "sm90 window 200/150 gqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_BF16, d); c.sq = 900; c.sk = 333; c.wl = 40; c.wr = 0; c.lse = 1;
        named(&c, "sm90 window 40 causal sq>sk"); run_case(c);
        if (g_quick) continue;
        c = base_case(FLASHC_DTYPE_F16, d); c.sq = 300; c.sk = 5000; c.wl = 1000; c.out_dt = FLASHC_DTYPE_BF16;
        named(&c, "sm90 window left 1000 long keys"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.v_transposed = 0; c.b = 1; c.sq = c.sk = 1300; c.causal = 1;
        c.wl = 257;
        named(&c, "sm90 window fp8 v rows causal 257"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.vtpad = 1; c.sq = 500; c.sk = 800; c.wl = 5; c.wr = 3;
        named(&c, "sm90 window fp8 vt 5/3"); run_case(c);
    }
}

/* Score transforms on the Hopper path (the _cap / _alibi kernels, 16-bit): many key blocks so the
   transforms meet every loop (masked first blocks, the unmasked run, a window's left edge), a
   softcap small enough to saturate tanh, ALiBi with and without the causal diagonal and windows,
   tiles without keys (causal s_q > s_k), and fp8 in both V layouts (descales before the transforms). */
static void sm90_score_mod_cases(void)
{
    const int dims[3] = {64, 128, 256};
    tcase c;
    for (int k = 0; k < 3; ++k) {
        const int d = dims[k];
        c = base_case(FLASHC_DTYPE_BF16, d); c.sq = 700; c.sk = 1300; c.softcap = 3.0f; c.scale = 0.5f;
        c.sm90_runs = 1; named(&c, "sm90 softcap 3 scale 0.5"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.sq = c.sk = 1000; c.causal = 1; c.alibi = ALIBI_BH; c.hq = 4; c.hkv = 2;
        c.sm90_runs = 1; named(&c, "sm90 alibi [b,h] causal gqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_BF16, d); c.sq = 300; c.sk = 900; c.alibi = ALIBI_H; c.softcap = 10.0f; c.wl = 200;
        c.wr = 50;
        c.sm90_runs = 1; named(&c, "sm90 softcap alibi window 200/50"); run_case(c);
        if (g_quick) continue;
        c = base_case(FLASHC_DTYPE_F16, d); c.sq = 500; c.sk = 2100; c.alibi = ALIBI_H; c.out_dt = FLASHC_DTYPE_BF16;
        c.sm90_runs = 1; named(&c, "sm90 alibi [h] long keys"); run_case(c);
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 1; c.sq = c.sk = 1500; c.causal = 1; c.softcap = 30.0f;
        c.hq = 8; c.hkv = 1;
        c.sm90_runs = 1; named(&c, "sm90 softcap 30 causal mqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.sq = 900; c.sk = 333; c.causal = 1; c.softcap = 5.0f; c.alibi = ALIBI_BH;
        c.sm90_runs = 1; named(&c, "sm90 softcap alibi causal sq>sk"); run_case(c);
        /* fp8: the descales join the score scale before the transforms */
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.vtpad = 1; c.sq = 600; c.sk = 900; c.causal = 1; c.softcap = 5.0f;
        c.alibi = ALIBI_BH; c.hq = 4; c.hkv = 2;
        c.sm90_runs = 1; named(&c, "sm90 fp8 vt softcap alibi causal gqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.v_transposed = 0; c.sq = 300; c.sk = 1100; c.softcap = 3.0f;
        c.scale = 0.5f;
        c.sm90_runs = 1; named(&c, "sm90 fp8 v rows softcap 3 scale 0.5"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.v_transposed = 0; c.sq = 500; c.sk = 700; c.alibi = ALIBI_H;
        c.sm90_runs = 1; named(&c, "sm90 fp8 v rows alibi [h]"); run_case(c);
    }
}

/* Packed sequences on the Hopper path (the _vl kernels): sequences of many tiles and key blocks
   beside empty ones (no queries, no keys), tiles that end inside a sequence (the next sequence's
   rows are in the same TMA box and must be neither used nor overwritten), causal with s_q > s_k
   per sequence, windows, GQA, LSE, one side packed and the other batched, fp8 with V^T and V rows. */
static void sm90_varlen_cases(void)
{
    const int dims[3] = {64, 128, 256};
    tcase c;
    for (int k = 0; k < 3; ++k) {
        const int d = dims[k];
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 4; c.q_varlen = 1; c.kv = KV_VARLEN; c.sm90_runs = 1;
        c.poison_unused = 1; /* NaN in the K/V rows after the last sequence */
        { int lq[4] = {300, 0, 1000, 129}, lk[4] = {500, 77, 1000, 0}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 varlen"); run_case(c);
        c.causal = 1; c.hq = 4; c.hkv = 2; named(&c, "sm90 varlen causal gqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.wl = 100; c.wr = 30;
        c.sm90_runs = 1;
        { int lq[3] = {700, 64, 1}, lk[3] = {300, 2000, 129}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 varlen window 100/30"); run_case(c);
        if (g_quick) continue;
        /* fp8 V^T with packed keys: refused by the Hopper path (sequence starts off 16 bytes fault its
           TMA copy), AUTO runs it on the portable path. V^T rows of total_k keys padded to 16 bytes. */
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.causal = 1; c.vtpad = 1;
        c.sm90_refused = 1; c.poison_unused = 1;
        { int lq[3] = {200, 513, 5}, lk[3] = {1000, 33, 260}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 varlen fp8 vt causal (refused: portable)"); run_case(c);
        c.v_transposed = 0; c.vtpad = 0; c.sm90_refused = 0; c.sm90_runs = 1;
        named(&c, "sm90 varlen fp8 v rows causal"); run_case(c);
        c.causal = 0; c.hq = 4; c.hkv = 1;
        named(&c, "sm90 varlen fp8 v rows mqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 3; c.q_varlen = 1; c.sk = 700; c.out_dt = FLASHC_DTYPE_F16;
        c.sm90_runs = 1;
        { int lq[3] = {1, 17, 300}; memcpy(c.seqlens_q, lq, sizeof lq); }
        named(&c, "sm90 varlen q, batched k"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.b = 2; c.sq = 200; c.kv = KV_VARLEN; c.causal = 1; c.sm90_runs = 1;
        { int lk[2] = {1500, 3}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 batched q, varlen k causal"); run_case(c);
        /* score transforms with per-sequence lengths (the _vl_mod kernels; none for fp8 d256) */
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 2; c.q_varlen = 1; c.kv = KV_VARLEN; c.softcap = 5.0f;
        c.sm90_runs = 1;
        { int lq[2] = {100, 200}, lk[2] = {300, 50}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 varlen softcap"); run_case(c);
        c.softcap = 0.0f; c.alibi = ALIBI_BH; c.causal = 1; named(&c, "sm90 varlen alibi causal"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.v_transposed = 0; c.b = 2; c.q_varlen = 1; c.kv = KV_VARLEN;
        c.softcap = 4.0f; c.alibi = ALIBI_H; c.sm90_runs = d != 256; c.poison_unused = 1;
        { int lq[2] = {300, 70}, lk[2] = {200, 650}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 varlen fp8 v rows softcap alibi"); run_case(c);
    }
}

/* Paged K/V and seqused_k on the Hopper path (the _vl kernels): pages of whole key blocks (one TMA
   box per block: 256, d256's 160; fp8 V^T 256) and pages inside a block (one box per page: 8, 16,
   32; d256: 16, 40, 80), sequences that end inside a page and inside a box, an empty sequence,
   every key no sequence uses poisoned with NaN (masked out of S, zeroed by the V pass before P.V),
   seqused_k on batched and packed K, causal, windows, GQA, packed queries, fp8 in both V layouts.
   Page sizes the Hopper path refuses (not a multiple of 8 dividing the key block, nor a multiple of
   it) still run through AUTO on the portable path. Window sides past every key (INT32_MAX)
   are no bound (validation makes them -1) on every path. */
static void sm90_paged_cases(void)
{
    const int dims[3] = {64, 128, 256};
    tcase c;
    for (int k = 0; k < 3; ++k) {
        const int d = dims[k];
        const int whole = d == 256 ? 160 : 256, sub = d == 256 ? 40 : 32, refused = d == 256 ? 64 : 24;
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 3; c.kv = KV_PAGED; c.page_size = 16; c.sq = 300; c.hq = 4;
        c.hkv = 2; c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[3] = {1000, 0, 333}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged ps16 gqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.b = 3; c.kv = KV_PAGED; c.page_size = whole; c.sq = 200; c.causal = 1;
        c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[3] = {700, 129, 1}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged whole-block pages causal"); run_case(c);
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 2; c.sk = 700; c.seqused = 1; c.sq = 150; c.sm90_runs = 1;
        c.poison_unused = 1;
        named(&c, "sm90 seqused_k batched k"); run_case(c);
        if (g_quick) continue;
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 3; c.kv = KV_PAGED; c.page_size = sub; c.q_varlen = 1;
        c.wl = 100; c.wr = 20; c.sm90_runs = 1; c.poison_unused = 1; c.out_dt = FLASHC_DTYPE_F16;
        { int lq[3] = {150, 40, 70}, lk[3] = {300, 600, 5}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged small pages, varlen q, window 100/20"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.b = 2; c.kv = KV_PAGED; c.page_size = d == 256 ? 80 : 8; c.sq = 100;
        c.hq = 8; c.hkv = 1; c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[2] = {517, 64}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged ps8 (d256: 80) mqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.b = 2; c.kv = KV_VARLEN; c.q_varlen = 1; c.seqused = 1;
        c.sm90_runs = 1; c.poison_unused = 1;
        { int lq[2] = {100, 300}, lk[2] = {500, 800}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 seqused_k varlen k"); run_case(c);
        /* fp8: V in K's layout on small pages, V^T on pages of whole blocks (its 128-key boxes) */
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.v_transposed = 0; c.b = 3; c.kv = KV_PAGED; c.page_size = 16;
        c.sq = 250; c.causal = 1; c.hq = 4; c.hkv = 2; c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[3] = {900, 77, 0}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged fp8 v rows ps16 causal gqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.b = 2; c.kv = KV_PAGED; c.page_size = 256; c.sq = 130;
        c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[2] = {900, 3}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged fp8 vt ps256"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.v_transposed = 0; c.b = 2; c.sk = 600; c.seqused = 1; c.sq = 90;
        c.sm90_runs = 1; c.poison_unused = 1;
        named(&c, "sm90 seqused_k fp8 v rows"); run_case(c);
        c.v_transposed = 1; c.vtpad = 1; named(&c, "sm90 seqused_k fp8 vt"); run_case(c);
        /* two boxes per block (d256: 40, two per 80), a page per block; page-table rows longer
           than max_pages_per_seq with -1 in every entry no key uses */
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 2; c.kv = KV_PAGED; c.page_size = d == 256 ? 40 : 64; c.sq = 120;
        c.causal = 1; c.pt_spare = 1; c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[2] = {333, 1000}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged ps64 (d256: 40), spare page-table entries -1"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.b = 2; c.kv = KV_PAGED; c.page_size = d == 256 ? 80 : 128; c.sq = 64;
        c.pt_spare = 1; c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[2] = {256, 129}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged page = key block"); run_case(c);
        /* score transforms over pages (the _vl_mod kernels; fp8 d256 refused: portable) */
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 2; c.kv = KV_PAGED; c.page_size = 16; c.sq = 200; c.causal = 1;
        c.softcap = 30.0f; c.alibi = ALIBI_BH; c.hq = 4; c.hkv = 1; c.sm90_runs = 1; c.poison_unused = 1;
        { int lk[2] = {800, 201}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged softcap alibi causal mqa"); run_case(c);
        c = base_case(FLASHC_DTYPE_FP8_E4M3, d); c.b = 2; c.kv = KV_PAGED; c.page_size = 256; c.sq = 150;
        c.alibi = ALIBI_H; c.sm90_runs = d != 256; c.poison_unused = 1;
        { int lk[2] = {600, 257}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged fp8 vt alibi"); run_case(c);
        /* refused by the Hopper path: the portable one runs it (AUTO must succeed) */
        c = base_case(FLASHC_DTYPE_BF16, d); c.b = 2; c.kv = KV_PAGED; c.page_size = refused; c.sq = 100;
        c.poison_unused = 1;
        { int lk[2] = {300, 50}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "sm90 paged refused page size (portable)"); run_case(c);
        /* window sides past every key */
        c = base_case(FLASHC_DTYPE_BF16, d); c.sq = 300; c.sk = 500; c.wl = INT32_MAX; c.wr = INT32_MAX;
        c.sm90_runs = 1;
        named(&c, "sm90 windows INT32_MAX"); run_case(c);
        c = base_case(FLASHC_DTYPE_F16, d); c.sq = 300; c.sk = 500; c.wl = 50; c.wr = INT32_MAX; c.sm90_runs = 1;
        named(&c, "sm90 window 50 / INT32_MAX"); run_case(c);
    }
}

static void big_cases(void)
{
    tcase c;
    c = base_case(FLASHC_DTYPE_BF16, 128); c.b = 1; c.sq = c.sk = 1024; c.hq = 2; c.hkv = 2;
    named(&c, "big s1024"); run_case(c);
    c.causal = 1; named(&c, "big s1024 causal"); run_case(c);
    c = base_case(FLASHC_DTYPE_F16, 64); c.b = 2; c.sq = 700; c.sk = 900; c.hq = 4; c.hkv = 1; c.causal = 1;
    named(&c, "big gqa causal"); run_case(c);
}

/* sm90 tail split (stream-K over the last round, non-causal): FLASHC_SM90_TAIL_SPLIT=force
   splits small problems too (fewer tiles than SMs: every block gets 0-2 pieces of a few key
   blocks), so these shapes reach every piece boundary, the s_k tail block inside a piece and the
   combine; the last case also splits under the default rule on a 132-SM H200 (144 tiles of 22
   key blocks: the last round shrinks from 22 to 2). The workspace check of run_backend covers
   "one byte short". */
static void tail_split_cases(void)
{
    const flashc_dtype dts[2] = {FLASHC_DTYPE_BF16, FLASHC_DTYPE_F16};
    const int dims[3] = {64, 128, 256};
    tcase c;
    setenv("FLASHC_SM90_TAIL_SPLIT", "force", 1);
    for (int t = 0; t < 2; ++t)
        for (int k = 0; k < 3; ++k) {
            c = base_case(dts[t], dims[k]); c.sq = 300; c.sk = 1000; c.hq = 4; c.hkv = 2;
            named(&c, "tail split gqa 2"); run_case(c);
            if (g_quick && k != 1) continue;
            c = base_case(dts[t], dims[k]); c.b = 1; c.sq = 77; c.sk = 3001; c.hq = 8; c.hkv = 1; c.lse = 1;
            named(&c, "tail split mqa long keys"); run_case(c);
        }
    /* d64 with s_k >= 4096: the 3-warpgroup shape (192-row tiles) */
    c = base_case(FLASHC_DTYPE_BF16, 64); c.b = 1; c.sq = 200; c.sk = 4100; c.hq = 2; c.hkv = 2; c.pad = 1;
    named(&c, "tail split d64 long padded"); run_case(c);
    c = base_case(FLASHC_DTYPE_F16, 128); c.out_dt = FLASHC_DTYPE_BF16; c.sq = 129; c.sk = 257; c.lse = 0;
    named(&c, "tail split other output no-lse"); run_case(c);
    unsetenv("FLASHC_SM90_TAIL_SPLIT");
    c = base_case(FLASHC_DTYPE_BF16, 64); c.b = 6; c.sq = 250; c.sk = 2800; c.hq = 12; c.hkv = 4;
    named(&c, "tail split default rule 144 tiles"); run_case(c);
}

/* The 16-bit tiles the default rule leaves untested on this GPU: on sm_90 the 4-warp
   two-slab tile takes non-causal and short causal problems (sm80_launch.cu sm80_two_slab), so
   FLASHC_SM80_TWO_SLAB=0 sends these (>= 128 rows, odd sizes) to the 8-warp tiles (A100's, and
   sm_90's for long causal), and =1 sends long causal / windowed to the two-slab lean-mask tile. */
static void sm80_tile_cases(void)
{
    const flashc_dtype dts[2] = {FLASHC_DTYPE_BF16, FLASHC_DTYPE_F16};
    tcase c;
    route_mark mark;
    route_mark_set(&mark);
    setenv("FLASHC_SM80_TWO_SLAB", "0", 1);
    for (int t = 0; t < 2; ++t) {
        c = base_case(dts[t], 128); c.sq = 200; c.sk = 333; named(&c, "8-warp tile plain"); run_case(c);
        c = base_case(dts[t], 128); c.sq = 257; c.sk = 300; c.causal = 1; c.hq = 8; c.hkv = 2;
        named(&c, "8-warp tile causal gqa 4"); run_case(c);
        c = base_case(dts[t], 128); c.sq = c.sk = 190; c.wl = 33; c.wr = 17; c.softcap = 6.0f; c.bias = BIAS_BCAST_B;
        named(&c, "8-warp tile window softcap bias"); run_case(c);
        c = base_case(dts[t], 128); c.sq = 160; c.sk = 410; c.alibi = ALIBI_H; c.pad = 1;
        named(&c, "8-warp tile alibi padded"); run_case(c);
        expect_routef(&mark, "8-warp tile cases", "_%s_d128_m128_n128", kernel_dt(dts[t]));
    }
    route_mark_set(&mark);
    setenv("FLASHC_SM80_TWO_SLAB", "1", 1);
    for (int t = 0; t < 2; ++t) {
        c = base_case(dts[t], 128); c.b = 1; c.sq = 130; c.sk = 2100; c.causal = 1;
        named(&c, "two-slab tile causal long keys"); run_case(c);
        c = base_case(dts[t], 128); c.b = 1; c.sq = c.sk = 2100; c.hq = c.hkv = 1; c.wl = 100; c.wr = 0;
        named(&c, "two-slab tile window long keys"); run_case(c);
        expect_routef(&mark, "two-slab tile cases", "_%s_d128_m128_n64", kernel_dt(dts[t]));
    }
    unsetenv("FLASHC_SM80_TWO_SLAB");
}

/* The 8-bit 128-row prefill tiles (two-slab e4m3 d64 / d128, int8 d128 and, as lean-loader twins
   only, int8 d64; 8-warp d256): on sm_90 the default
   rule (sm80_launch.cu sm80_8bit_two_slab) leaves short causal problems to the 64-row tiles, so
   FLASHC_SM80_8BIT_TWO_SLAB=1 sends these (>= 128 rows, odd sizes, every score transform, GQA,
   varlen) to the two-slab tiles, and =0 sends a non-causal one to the 64-row tile (Ada's). */
/* dtype t: 0 fp8 e4m3, 1 int8 (a unit each: the suite's longest section) */
static void sm80_8bit_tile_cases(int t)
{
    const flashc_dtype dts[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
    const int dims[3] = {64, 128, 256};
    tcase c;
    route_mark mark;
    setenv("FLASHC_SM80_8BIT_TWO_SLAB", "1", 1);
    for (int k = 0; k < 3; ++k) {
        if (dts[t] == FLASHC_DTYPE_INT8 && dims[k] == 64) continue; /* int8 d64: no general two-slab tile */
        route_mark_set(&mark);
        c = base_case(dts[t], dims[k]); c.sq = 200; c.sk = 333; named(&c, "8-bit two-slab plain"); run_case(c);
        c = base_case(dts[t], dims[k]); c.sq = 257; c.sk = 300; c.causal = 1; c.hq = 8; c.hkv = 2;
        named(&c, "8-bit two-slab causal gqa 4"); run_case(c);
        c = base_case(dts[t], dims[k]); c.sq = c.sk = 190; c.wl = 33; c.wr = 17; c.softcap = 6.0f; c.bias = BIAS_BCAST_B;
        named(&c, "8-bit two-slab window softcap bias"); run_case(c);
        c = base_case(dts[t], dims[k]); c.sq = 160; c.sk = 410; c.alibi = ALIBI_H; c.pad = 1;
        named(&c, "8-bit two-slab alibi padded"); run_case(c);
        c = base_case(dts[t], dims[k]); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.causal = 1;
        { int lq[3] = {150, 0, 300}, lk[3] = {200, 50, 301}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "8-bit two-slab varlen causal"); run_case(c);
        /* V rows: these odd sizes take the lean twins as well (only paged K/V needs the general one) */
        expect_routef(&mark, "8-bit two-slab cases", g_v_rows ? "_%s_d%d_m128" : "_%s_d%d_m128$", kernel_dt(dts[t]),
                      dims[k]);
    }
    /* Key counts that are multiples of 16 keep every V^T chunk 16-byte aligned, so these take the
       lean-loader twins (sm80_8bit_fast_ok; the odd sizes above take the general tiles): mode 0 the
       default routes (_lm_f for masked problems, _f otherwise), mode 1 FLASHC_SM80_8BIT_LEAN_MASK=0
       (masked ones on _f), mode 2 FLASHC_SM80_8BIT_FAST=0 (the general tiles on aligned layouts) */
    static const char *mode_name[3] = {"lean", "lean no-lm", "general aligned"};
    for (int mode = 0; mode < 3; ++mode) {
        setenv("FLASHC_SM80_8BIT_LEAN_MASK", mode == 1 ? "0" : "1", 1);
        setenv("FLASHC_SM80_8BIT_FAST", mode == 2 ? "0" : "1", 1);
        char what[96];
        for (int k = 0; k < 3; ++k) {
            route_mark_set(&mark);
            /* int8 d64 has lean-loader twins only: mode 2 runs its 64-row tile */
            c = base_case(dts[t], dims[k]); c.sq = 200; c.sk = 336;
            snprintf(what, sizeof what, "8-bit %s plain", mode_name[mode]); named(&c, what); run_case(c);
            c = base_case(dts[t], dims[k]); c.sq = 257; c.sk = 304; c.causal = 1; c.hq = 8; c.hkv = 2;
            snprintf(what, sizeof what, "8-bit %s causal gqa 4", mode_name[mode]); named(&c, what); run_case(c);
            c = base_case(dts[t], dims[k]); c.sq = 190; c.sk = 208; c.wl = 33; c.wr = 17;
            snprintf(what, sizeof what, "8-bit %s window", mode_name[mode]); named(&c, what); run_case(c);
            const char *dtn = kernel_dt(dts[t]);
            if (mode == 2) {
                if (dts[t] == FLASHC_DTYPE_INT8 && dims[k] == 64) expect_route(&mark, "8-bit general aligned", "_int8_d64_m64");
                else expect_routef(&mark, "8-bit general aligned", "_%s_d%d_m128$", dtn, dims[k]);
                continue;
            }
            expect_routef(&mark, "8-bit lean cases", "_%s_d%d_m128_f$", dtn, dims[k]);
            if (mode == 0) expect_routef(&mark, "8-bit lean cases", "_%s_d%d_m128_lm_f$", dtn, dims[k]);
            c = base_case(dts[t], dims[k]); c.sq = 190; c.sk = 208; c.wl = 33; c.wr = 17; c.softcap = 6.0f;
            c.bias = BIAS_BCAST_B;
            snprintf(what, sizeof what, "8-bit %s window softcap bias", mode_name[mode]); named(&c, what); run_case(c);
            c = base_case(dts[t], dims[k]); c.sq = 160; c.sk = 416; c.causal = 1; c.alibi = ALIBI_H; c.lse = 0;
            c.out_dt = FLASHC_DTYPE_F16;
            snprintf(what, sizeof what, "8-bit %s causal alibi f16-out no-lse", mode_name[mode]); named(&c, what);
            run_case(c);
            /* (head, batch) pairs before and in the launch-order tail (FWD_LPT_TAIL: the last 2 pairs) */
            setenv("FLASHC_SM80_LPT_TAIL", "2", 1);
            c = base_case(dts[t], dims[k]); c.b = 3; c.sq = 130; c.sk = 4096; c.causal = 1; c.hq = 6; c.hkv = 3;
            snprintf(what, sizeof what, "8-bit %s causal long keys", mode_name[mode]); named(&c, what); run_case(c);
            unsetenv("FLASHC_SM80_LPT_TAIL");
        }
    }
    unsetenv("FLASHC_SM80_8BIT_LEAN_MASK");
    unsetenv("FLASHC_SM80_8BIT_FAST");
    setenv("FLASHC_SM80_8BIT_TWO_SLAB", "0", 1);
    for (int k = 0; k < 3; ++k) {
        route_mark_set(&mark);
        c = base_case(dts[t], dims[k]); c.sq = 200; c.sk = 333; c.hq = 4; c.hkv = 2;
        named(&c, "8-bit 64-row tile plain gqa"); run_case(c);
        expect_routef(&mark, "8-bit 64-row tile cases", "_%s_d%d_m64", kernel_dt(dts[t]), dims[k]);
    }
    unsetenv("FLASHC_SM80_8BIT_TWO_SLAB");
}

/* The 8-bit 32-row split-key tiles (_m32_sk, two 16-row warp groups; e4m3 / int8, d64 / d128): the
   default rule (sm80_launch.cu sm80_sk32_rows) takes them only with enough key blocks per CTA slot,
   more than a CPU-checked case holds, so FLASHC_SM80_SK32=1 sends these 17-32 / 49-64-row decode
   cases to them: tails, split and unsplit keys, every score transform, LSE, seqused_k, whole-block
   pages, the page-sub twins (pages of 16 / 32 / 64 keys), and varlen queries that leave a row group
   past its sequence. */
static void sm80_8bit_sk32_cases(void)
{
    const flashc_dtype dts[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
    const int dims[2] = {64, 128};
    tcase c;
    route_mark mark;
    route_mark_set(&mark);
    setenv("FLASHC_SM80_SK32", "1", 1);
    for (int t = 0; t < 2; ++t)
        for (int k = 0; k < 2; ++k) {
            const flashc_dtype dt = dts[t];
            const int d = dims[k];
            splitk8_row_cases(dt, d, "sk32");
            c = base_case(dt, d); c.b = 3; c.sq = 4; c.hkv = 2; c.hq = 16; c.kv = KV_PAGED; c.page_size = 512;
            { int lk[3] = {2000, 0, 700}; memcpy(c.seqlens_k, lk, sizeof lk); }
            named(&c, "decode8 sk32 32 rows paged ps512"); run_case(c);
            /* 4 / 2 / 0 query tokens x 8 heads: the second sequence's tile has an empty row group */
            c = base_case(dt, d); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.hkv = 2; c.hq = 16; c.causal = 1;
            { int lq[3] = {4, 2, 0}, lk[3] = {1900, 777, 300}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
            named(&c, "decode8 sk32 varlen 32/16/0 rows"); run_case(c);
            /* the page-sub twins (_pg: pages of 32 / 64 keys inside a 128-key block; _pg16: pages of
               16): 24, 32 and 64 rows, last pages of 12 / 3 / 5 keys, split keys, and one unsplit
               set of short sequences; every score transform and LSE among them */
            const int pgs[5][3] = {{16, 4, 0}, {16, 8, 1}, {32, 3, 2}, {64, 8, 3}, {64, 4, 4}}; /* page, s_q, mix */
            for (int i = 0; i < 5; ++i) {
                c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = pgs[i][0]; c.sq = pgs[i][1];
                c.hkv = 2; c.hq = 16;
                int lk[3] = {1500, 3, 2101};
                switch (pgs[i][2]) {
                case 0: c.causal = 1; c.wl = 700; c.alibi = ALIBI_BH; break;
                case 1: c.causal = 1; c.wl = 64; break;
                case 2: c.softcap = 6.0f; c.bias = BIAS_FULL; break;
                case 3: c.out_dt = FLASHC_DTYPE_F16; c.causal = 1; break;
                default: lk[0] = 100; lk[1] = 17; lk[2] = 250; c.alibi = ALIBI_H; break;
                }
                memcpy(c.seqlens_k, lk, sizeof lk);
                char what[80];
                snprintf(what, sizeof what, "decode8 sk32 paged ps%d %d rows%s", pgs[i][0], c.sq * 8,
                         pgs[i][2] == 4 ? " short" : "");
                named(&c, what); run_case(c);
            }
        }
    unsetenv("FLASHC_SM80_SK32");
    static const char *tiles[4] = {"e4m3_d64_m32_sk", "e4m3_d128_m32_sk", "int8_d64_m32_sk", "int8_d128_m32_sk"};
    for (int k = 0; k < 4; ++k) expect_route(&mark, "8-bit sk32 cases", tiles[k]);
}

/* Split-key grids of more CTAs than the SMs hold at once with a mostly empty last wave (sm80_launch.cu
   sm80_wave_splits: 8 x 40 KV heads = 320 CTAs, 1.2 waves on an H200) take key splits: bf16 17 key
   blocks (no split count reaches the fill goal: the best one), fp8 9 blocks with a tail, and GQA 4
   packed rows with LSE. */
static void sm80_wave_split_cases(void)
{
    tcase c = base_case(FLASHC_DTYPE_BF16, 128);
    c.b = MAX_B; c.hq = 160; c.hkv = 40; c.sq = 1; c.sk = 1061;
    named(&c, "decode wave-split bf16"); run_case(c);
    c = base_case(FLASHC_DTYPE_FP8_E4M3, 128);
    c.b = MAX_B; c.hq = 160; c.hkv = 40; c.sq = 1; c.sk = 1056;
    named(&c, "decode wave-split fp8"); run_case(c);
}

/* Prefill grids of several waves: every other case launches fewer CTAs than the GPU holds at once,
   so no SM ever starts a CTA after another has left, and a tile whose end leaves shared memory (or
   anything else) in use past its exit passes them. Session 30 met one: the d256 8-warp tile with
   its output rows stored by cp.async.bulk passed the d256 cases (400 / 0) and was wrong in 127 of
   every 128 rows of the benchmark's b 32, h 8, s 512 grid (of every grid past one wave: session 31).
   Here 2 m-blocks x h_q = 4 CTAs per SM (at most two resident: two waves or more), with short
   sequences so the CPU reference stays cheap (~25 s for the section) and the CTAs turn over fast: a
   partly filled last key block (80 keys), 22 rows in the second m-block, MHA (the fast-loader `_f`
   tiles) and, for bf16 d128, causal (`_lm_f`) and GQA. */
static void multi_wave_cases(void)
{
    const flashc_dtype dts[3] = {FLASHC_DTYPE_BF16, FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
    const int dims[3] = {64, 128, 256};
    const int heads = 2 * (g_sms > 0 ? g_sms : 132); /* 2 m-blocks each: 4 CTAs per SM */
    tcase c;
    char what[96];
    route_mark mark;
    route_mark_set(&mark);
    for (int t = 0; t < 3; ++t)
        for (int k = 0; k < 3; ++k) {
            if (g_quick && dims[k] != 128) continue;
            c = base_case(dts[t], dims[k]);
            c.b = 1; c.sq = 150; c.sk = 80; c.hq = c.hkv = heads; /* 8-bit `_f`: V^T rows of 16-byte multiples */
            snprintf(what, sizeof what, "multi-wave %d heads", heads);
            named(&c, what); run_case(c);
        }
    c = base_case(FLASHC_DTYPE_BF16, 128);
    c.b = 1; c.sq = 150; c.sk = 150; c.hq = c.hkv = heads; c.causal = 1;
    named(&c, "multi-wave causal"); run_case(c);
    c.causal = 0; c.hkv = heads / 4;
    named(&c, "multi-wave gqa 4"); run_case(c);
    if (!g_quick) expect_route(&mark, "multi-wave cases", "bf16_d256_m128_n64_f"); /* the tile session 30 broke */
}

/* The split-key tiles' lean-loader twins (_sk_f, fwd_splitk.cuh FWD_SK_FAST; sm80_launch.cu
   sm80_sk_fast_ok): non-paged K/V and, 8-bit, V^T rows of a multiple of 16 bytes, which the grid's
   odd key counts do not give. Key counts that are multiples of 16 with a partly filled last block,
   seqused_k below s_k (an empty sequence included), split and unsplit keys, 1-64 rows (8-bit: one
   to three 16-row tiles per KV head, and the 32-row tile forced with FLASHC_SM80_SK32=1), every
   score transform, LSE, f16 output, determinism and graph capture; last, the first case again on the
   general tile (FLASHC_SM80_SK_FAST=0). */
static void sm80_sk_fast_cases(void)
{
    tcase c;
    for (int t = 0; t < 4; ++t)
        for (int d = 64; d <= 128; d *= 2) {
            const flashc_dtype dt = ALL_DTYPES[t];
            const int is8 = is_8bit(dt);
            if (g_v_rows && !is8) continue; /* the V-rows units: 8-bit only */
            if (g_quick && d != 128) continue;
            const char *dtn = kernel_dt(dt);
            const int tile_m = is8 ? 16 : 32;
            route_mark mark;
            route_mark_set(&mark);
            c = base_case(dt, d); c.b = 3; c.sq = is8 ? 1 : 3; c.sk = 4112; c.hkv = 2; c.hq = is8 ? 8 : 16; c.extra = 1;
            named(&c, is8 ? "decode skf 4 rows sk4112" : "decode skf 24 rows sk4112"); run_case(c);
            const tcase first = c;
            c = base_case(dt, d); c.b = 3; c.sq = 2; c.sk = 2048; c.hkv = 1; c.hq = 8; c.seqused = 1; c.causal = 1; c.wl = 300;
            named(&c, "decode skf 16 rows seqused causal window"); run_case(c);
            c = base_case(dt, d); c.b = 2; c.sq = 1; c.sk = 1024; c.hkv = 2; c.hq = 8; c.softcap = 6.0f;
            c.alibi = ALIBI_BH; c.bias = BIAS_FULL;
            named(&c, "decode skf softcap alibi bias"); run_case(c);
            c = base_case(dt, d); c.b = 8; c.sq = 2; c.sk = 160; c.hkv = 4; c.hq = 16; c.out_dt = FLASHC_DTYPE_F16;
            named(&c, "decode skf 8 rows sk160 no split"); run_case(c);
            c = base_case(dt, d); c.b = 2; c.sq = 1; c.sk = 1504; c.hq = c.hkv = 3;
            named(&c, "decode skf mha"); run_case(c);
            expect_routef(&mark, "skf cases", "_%s_d%d_m%d_sk_f$", dtn, d, tile_m);
            if (is8) {
                route_mark_set(&mark);
                c = base_case(dt, d); c.b = 3; c.sq = 4; c.sk = 4144; c.hkv = 2; c.hq = 16;
                named(&c, "decode skf 32 rows two tiles"); run_case(c);
                c = base_case(dt, d); c.b = 2; c.sq = 5; c.sk = 1536; c.hkv = 2; c.hq = 16; c.causal = 1; c.lse = 1;
                named(&c, "decode skf 40 rows three tiles causal"); run_case(c);
                setenv("FLASHC_SM80_SK32", "1", 1);
                setenv("FLASHC_SM80_SK32_WIDE", "0", 1); /* d128: the 4-warp tile, not its wide twin */
                c = base_case(dt, d); c.b = 3; c.sq = 4; c.sk = 2064; c.hkv = 2; c.hq = 16; c.seqused = 1;
                named(&c, "decode skf sk32 32 rows seqused"); run_case(c);
                c = base_case(dt, d); c.b = 2; c.sq = 8; c.sk = 1040; c.hkv = 1; c.hq = 8; c.causal = 1; c.softcap = 5.0f;
                named(&c, "decode skf sk32 64 rows causal softcap"); run_case(c);
                unsetenv("FLASHC_SM80_SK32_WIDE");
                unsetenv("FLASHC_SM80_SK32");
                expect_routef(&mark, "skf sk32 cases", "_%s_d%d_m32_sk_f$", dtn, d);
            }
            route_mark_set(&mark);
            setenv("FLASHC_SM80_SK_FAST", "0", 1);
            c = first; c.extra = 0; named(&c, "decode skf off 4112"); run_case(c);
            expect_routef(&mark, "skf off case", "_%s_d%d_m%d_sk$", dtn, d, tile_m);
            if (is8) { /* the 32-row general tile on a layout its lean twin takes (V rows: any key count) */
                route_mark_set(&mark);
                setenv("FLASHC_SM80_SK32", "1", 1);
                c = base_case(dt, d); c.b = 2; c.sq = 4; c.sk = 1040; c.hkv = 2; c.hq = 16; c.causal = 1; c.lse = 1;
                named(&c, "decode skf off sk32 32 rows causal"); run_case(c);
                unsetenv("FLASHC_SM80_SK32");
                expect_routef(&mark, "skf off sk32 case", "_%s_d%d_m32_sk$", dtn, d);
            }
            unsetenv("FLASHC_SM80_SK_FAST");
        }
}

/* The split-key tiles' paged twins (sm_90): the whole-page lean-loader twins (_sk_wp, sm80_sk_wp_ok:
   pages holding whole key blocks, every dtype) and the 16-bit page-sub twins (_sk_pg, 17-32 rows on
   pages of 8-32 keys splitting a block, sm80_sk_pg_16bit). Pages that are several blocks and a
   partial last page, seqused_k with an empty sequence, split and unsplit keys, 8-32 rows (8-bit: 16
   and 32-row tiles), every score transform, LSE, f16 output, determinism and graph capture; then the
   first cases again on the routes the twins replace (FLASHC_SM80_SK_WP=0: the general tile;
   FLASHC_SM80_SK_PG16BIT=0: the deep ring's page-sub twin) and the 16-bit page-sub twin at 16 rows
   (FLASHC_SM80_SK_PG16BIT=1). */
static void sm80_sk_page_cases(void)
{
    tcase c;
    char what[96];
    for (int t = 0; t < 4; ++t)
        for (int d = 64; d <= 128; d *= 2) {
            const flashc_dtype dt = ALL_DTYPES[t];
            const int is8 = is_8bit(dt);
            if (g_v_rows && !is8) continue; /* the V-rows units: 8-bit only */
            const int block = is8 || d == 64 ? 128 : 64; /* the split-key tile's key block */
            if (g_quick && d != 128) continue;
            const char *dtn = kernel_dt(dt);
            route_mark mark;
            route_mark_set(&mark);
            /* whole pages: one block and three blocks per page, last pages partly filled */
            c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = block; c.sq = 4; c.hkv = 2; c.hq = 16;
            c.extra = 1;
            { int lk[3] = {2000, 0, 1001}; memcpy(c.seqlens_k, lk, sizeof lk); }
            snprintf(what, sizeof what, "decode skwp ps%d 32 rows", block); named(&c, what); run_case(c);
            const tcase wp_first = c;
            c = base_case(dt, d); c.b = 2; c.kv = KV_PAGED; c.page_size = 3 * block; c.sq = 1; c.hkv = 2; c.hq = 8;
            c.softcap = 6.0f; c.alibi = ALIBI_BH; c.bias = BIAS_FULL;
            { int lk[2] = {1777, 2500}; memcpy(c.seqlens_k, lk, sizeof lk); }
            snprintf(what, sizeof what, "decode skwp ps%d 4 rows softcap alibi bias", 3 * block); named(&c, what);
            run_case(c);
            c = base_case(dt, d); c.b = 8; c.kv = KV_PAGED; c.page_size = 2 * block; c.sq = 2; c.hkv = 4; c.hq = 16;
            c.causal = 1; c.wl = 90; c.out_dt = FLASHC_DTYPE_F16;
            for (int i = 0; i < 8; ++i) c.seqlens_k[i] = 60 + 37 * i;
            snprintf(what, sizeof what, "decode skwp ps%d 8 rows short causal window", 2 * block); named(&c, what);
            run_case(c);
            if (is8) {
                setenv("FLASHC_SM80_SK32", "1", 1);
                c = wp_first; c.extra = 0; c.causal = 1; c.lse = 1;
                named(&c, "decode skwp sk32 32 rows causal"); run_case(c);
                unsetenv("FLASHC_SM80_SK32");
            }
            expect_routef(&mark, "skwp cases", "_%s_d%d_m*_sk_wp$", dtn, d);
            route_mark_set(&mark);
            setenv("FLASHC_SM80_SK_WP", "0", 1);
            c = wp_first; c.extra = 0; named(&c, "decode skwp off"); run_case(c);
            unsetenv("FLASHC_SM80_SK_WP");
            expect_routef(&mark, "skwp off case", "_%s_d%d_m*_sk$", dtn, d);
            if (is8) continue;
            /* 16-bit page-sub: 24 / 32 rows on pages of 8 / 16 / 32 keys, last pages of 5 / 3 / 13 keys */
            const int pgs[3][3] = {{8, 3, 0}, {16, 4, 1}, {32, 4, 2}}; /* page, s_q, mix */
            tcase pg_first = c;
            for (int i = 0; i < 3; ++i) {
                c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = pgs[i][0]; c.sq = pgs[i][1];
                c.hkv = 2; c.hq = 16;
                int lk[3] = {1501, 3, 2093};
                switch (pgs[i][2]) {
                case 0: c.causal = 1; c.wl = 700; c.alibi = ALIBI_H; c.extra = 1; break;
                case 1: c.softcap = 6.0f; c.bias = BIAS_FULL; c.lse = 1; break;
                default: lk[0] = 100; lk[1] = 0; lk[2] = 237; c.out_dt = FLASHC_DTYPE_F16; c.causal = 1; break;
                }
                memcpy(c.seqlens_k, lk, sizeof lk);
                snprintf(what, sizeof what, "decode skpg ps%d %d rows%s", pgs[i][0], c.sq * 8, pgs[i][2] == 2 ? " short" : "");
                named(&c, what); run_case(c);
                if (i == 1) pg_first = c;
            }
            setenv("FLASHC_SM80_SK_PG16BIT", "0", 1);
            c = pg_first; named(&c, "decode skpg off 32 rows"); run_case(c);
            setenv("FLASHC_SM80_SK_PG16BIT", "1", 1);
            c = pg_first; c.sq = 2; named(&c, "decode skpg forced 16 rows"); run_case(c);
            unsetenv("FLASHC_SM80_SK_PG16BIT");
        }
}

/* The wide 8-bit split-key tiles (fwd_<dt>_d128_m16_sk8*: 8 warps, 256-key blocks; sm80_launch.cu
   sm80_sk_wide), forced with FLASHC_SM80_SK_WIDE=1 on small grids: the lean loader (_sk8_f: key
   counts of multiples of 16, a partly filled last block, seqused_k with an empty sequence, 1-16
   rows, causal and window, every score transform, LSE, f16 output, determinism and graph capture,
   2 and 3 forced splits), whole pages of one and two blocks (_sk8_wp, last pages partly filled),
   the general loader (_sk8: odd key counts, varlen K/V, whole pages with FLASHC_SM80_SK_WP=0), each
   also as the pair of 17-32 rows (two CTAs per KV head, 16 rows each; sm80_sk_wide_pair); then,
   unforced, the rule's threshold from both sides (72 CTAs: fewer than the SMs, keys split) and the
   pair's one-wave rule at its two edges (2 x b x h_kv = 0.9 x and 1 x the SMs) and past them. */
/* Some launch (want 1) or none (want 0) as row halves since `before` (flashc_sm80_row_halves_launches;
   test_routes plans without launching: route checks only) */
static void expect_row_halves(unsigned long long before, int want, const char *section)
{
    if (ROUTES_ONLY || !g_be_enabled[BE_SM80] || g_cc < 90 || getenv("FLASHC_SM80_SMEM_OPTIN") || g_filter) return;
    const unsigned long long n = flashc_sm80_row_halves_launches() - before;
    if ((n > 0) != want) {
        printf("FAIL %s: %llu launches as row halves, expected %s\n", section, n, want ? "some" : "none");
        ++g_setup_fail;
    }
}

/* Row halves (sm80_row_halves): 2-16 rows as two wide CTAs per KV head, each computing a 16-row tile
   from row x * ceil(rows / 2) and writing its half. Forced (FLASHC_SM80_ROW_HALVES=1) on every loader
   (_sk8_f, _sk8_wp, _sk8) with odd and even row counts, unpacked rows (MHA), varlen queries whose
   second half is empty, seqused_k with an empty sequence, causal, window, every transform, LSE, f16
   output, 2 forced splits (the split epilogue); then the rule at the pair's one wave, past it, and
   turned off there (=0). */
static void sm80_row_halves_cases(flashc_dtype dt, const char *dtn, int pair_hi)
{
    tcase c;
    route_mark mark;
    route_mark_set(&mark);
    unsigned long long before = flashc_sm80_row_halves_launches();
    setenv("FLASHC_SM80_ROW_HALVES", "1", 1);
    c = base_case(dt, 128); c.b = 3; c.sq = 2; c.sk = 2064; c.hkv = 2; c.hq = 16; c.causal = 1; c.lse = 1;
    c.extra = 1;
    named(&c, "decode row halves 16 rows causal lse"); run_case(c);
    c = base_case(dt, 128); c.b = 3; c.sq = 5; c.sk = 2048; c.hkv = 2; c.hq = 2; c.seqused = 1; c.softcap = 6.0f;
    c.alibi = ALIBI_BH; c.bias = BIAS_FULL; c.out_dt = FLASHC_DTYPE_F16;
    { int lk[3] = {2048, 0, 1040}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode row halves 5 rows mha seqused empty softcap alibi bias"); run_case(c);
    setenv("FLASHC_SM80_SPLITS", "2", 1);
    c = base_case(dt, 128); c.b = 2; c.sq = 3; c.sk = 2064; c.hkv = 2; c.hq = 8; c.wl = 700; c.lse = 1;
    named(&c, "decode row halves 12 rows forced 2 splits window lse"); run_case(c);
    unsetenv("FLASHC_SM80_SPLITS");
    expect_routef(&mark, "row halves skf cases", "_%s_d128_m16_sk8_f$", dtn);
    route_mark_set(&mark);
    c = base_case(dt, 128); c.b = 3; c.kv = KV_PAGED; c.page_size = 256; c.sq = 1; c.hkv = 2; c.hq = 14;
    { int lk[3] = {2000, 0, 1001}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode row halves paged ps256 7 rows"); run_case(c);
    const tcase wp_case = c;
    expect_routef(&mark, "row halves skwp cases", "_%s_d128_m16_sk8_wp$", dtn);
    route_mark_set(&mark);
    c = base_case(dt, 128); c.b = 3; c.sq = 1; c.sk = 2001; c.hkv = 2; c.hq = 6; c.causal = 1;
    named(&c, "decode row halves general 3 rows sk2001 causal"); run_case(c);
    c = base_case(dt, 128); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.hkv = 2; c.hq = 8; c.lse = 1;
    { int lq[3] = {3, 1, 2}, lk[3] = {1501, 77, 2093}; memcpy(c.seqlens_q, lq, sizeof lq);
      memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode row halves general varlen q 12 rows lse"); run_case(c);
    setenv("FLASHC_SM80_SK_WP", "0", 1); /* (V rows: the lean loader takes the cases above) */
    c = wp_case; c.hq = 10; c.causal = 1; c.softcap = 5.0f;
    named(&c, "decode row halves general paged ps256 5 rows causal softcap"); run_case(c);
    unsetenv("FLASHC_SM80_SK_WP");
    expect_routef(&mark, "row halves general cases", "_%s_d128_m16_sk8$", dtn);
    expect_row_halves(before, 1, "row halves forced cases");
    /* the rule: the pair's one wave (8 rows over 1008 keys, 2 x h_kv = the SMs) takes them, a KV head
       more not, nor the one wave with the hook at 0 */
    unsetenv("FLASHC_SM80_ROW_HALVES");
    route_mark_set(&mark);
    before = flashc_sm80_row_halves_launches();
    c = base_case(dt, 128); c.b = 1; c.sq = 1; c.sk = 1008; c.hkv = pair_hi; c.hq = 8 * c.hkv;
    c.sm80_unsplit = 1;
    named(&c, "decode row halves rule one wave"); run_case(c);
    c.sm80_unsplit = 0;
    expect_routef(&mark, "row halves rule case", "_%s_d128_m16_sk8_f$", dtn);
    expect_row_halves(before, 1, "row halves rule case");
    before = flashc_sm80_row_halves_launches();
    c.hkv = pair_hi + 1; c.hq = 8 * c.hkv;
    named(&c, "decode row halves rule past one wave"); run_case(c);
    expect_row_halves(before, 0, "row halves rule past one wave");
    setenv("FLASHC_SM80_ROW_HALVES", "0", 1);
    route_mark_set(&mark);
    before = flashc_sm80_row_halves_launches();
    c.hkv = pair_hi; c.hq = 8 * c.hkv;
    named(&c, "decode row halves off one wave"); run_case(c);
    expect_routef(&mark, "row halves off case", "_%s_d128_m16_sk_f$", dtn);
    expect_row_halves(before, 0, "row halves off");
    unsetenv("FLASHC_SM80_ROW_HALVES");
}

/* The wide 32-row tile (fwd_int8_d128_m32_sk8_f: two 16-row groups of 4 warps, 256-key blocks;
   sm80_launch.cu sm80_sk32_wide: int8, 17-32 rows, wherever the 32-row tile runs and its lean loader
   applies), on small grids with FLASHC_SM80_SK32=1 (the 32-row tile whatever the work;
   route_rule_checks plans the rule's own shapes), V^T only (no V-rows twin): 24 and 32 rows, a
   partly filled last block, seqused_k with an empty sequence, causal, window, every transform, LSE,
   f16 output, determinism and graph capture, 2 and 3 forced splits; then what stays on the 4-warp
   tile: an odd key count (the general loader), 64 rows (two tiles), whole pages of 256. fp8 has no
   wide 32-row tile: its cases here take the 4-warp one. */
static void sm80_sk32_wide_cases(flashc_dtype dt, const char *dtn)
{
    if (g_v_rows) return;
    const int wide = dt == FLASHC_DTYPE_INT8;
    tcase c;
    route_mark mark;
    route_mark_set(&mark);
    setenv("FLASHC_SM80_SK32", "1", 1);
    c = base_case(dt, 128); c.b = 3; c.sq = 3; c.sk = 4112; c.hkv = 2; c.hq = 16; c.causal = 1; c.lse = 1;
    c.extra = 1;
    named(&c, "decode wide32 24 rows sk4112 causal lse"); run_case(c);
    c = base_case(dt, 128); c.b = 3; c.sq = 4; c.sk = 2048; c.hkv = 1; c.hq = 8; c.seqused = 1;
    c.softcap = 6.0f; c.alibi = ALIBI_BH; c.bias = BIAS_FULL; c.out_dt = FLASHC_DTYPE_F16;
    { int lk[3] = {2048, 0, 1040}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode wide32 32 rows seqused empty softcap alibi bias f16 out"); run_case(c);
    c = base_case(dt, 128); c.b = 2; c.sq = 4; c.sk = 1808; c.hkv = 2; c.hq = 16; c.wl = 600; c.lse = 1;
    named(&c, "decode wide32 32 rows window lse"); run_case(c);
    setenv("FLASHC_SM80_SPLITS", "2", 1);
    c = base_case(dt, 128); c.b = 2; c.sq = 3; c.sk = 2064; c.hkv = 2; c.hq = 16; c.causal = 1;
    named(&c, "decode wide32 24 rows forced 2 splits causal"); run_case(c);
    setenv("FLASHC_SM80_SPLITS", "3", 1);
    c = base_case(dt, 128); c.b = 3; c.sq = 4; c.sk = 2064; c.hkv = 2; c.hq = 16; c.seqused = 1; c.lse = 1;
    { int lk[3] = {2064, 0, 272}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode wide32 forced 3 splits seqused short"); run_case(c);
    unsetenv("FLASHC_SM80_SPLITS");
    expect_routef(&mark, "wide32 skf cases", wide ? "_%s_d128_m32_sk8_f$" : "_%s_d128_m32_sk_f$", dtn);
    /* the 4-warp tile: no general loader, one wide tile per KV head, no whole-page twin */
    route_mark_set(&mark);
    c = base_case(dt, 128); c.b = 3; c.sq = 4; c.sk = 2001; c.hkv = 2; c.hq = 16; c.causal = 1;
    named(&c, "decode wide32 sk2001 4-warp general"); run_case(c);
    expect_routef(&mark, "wide32 general case", "_%s_d128_m32_sk$", dtn);
    route_mark_set(&mark);
    c = base_case(dt, 128); c.b = 2; c.sq = 8; c.sk = 1808; c.hkv = 2; c.hq = 16; c.wl = 600; c.lse = 1;
    named(&c, "decode wide32 64 rows 4-warp two tiles window lse"); run_case(c);
    expect_routef(&mark, "wide32 64-row case", "_%s_d128_m32_sk_f$", dtn);
    route_mark_set(&mark);
    c = base_case(dt, 128); c.b = 3; c.kv = KV_PAGED; c.page_size = 256; c.sq = 4; c.hkv = 2; c.hq = 16;
    { int lk[3] = {2000, 0, 1001}; memcpy(c.seqlens_k, lk, sizeof lk); }
    named(&c, "decode wide32 paged ps256 4-warp whole pages"); run_case(c);
    expect_routef(&mark, "wide32 ps256 case", "_%s_d128_m32_sk_wp$", dtn);
    unsetenv("FLASHC_SM80_SK32");
}

#define SK_WIDE_MIN_KEYS_PER_SM 6144 /* sm80_launch.cu SM80_SK_WIDE_MIN_KEYS_PER_SM */
#define SK_WIDE_PAIR_MIN_FILL 0.9     /* sm80_launch.cu SM80_SK_WIDE_PAIR_MIN_FILL */
static void sm80_sk_wide_cases(void)
{
    const flashc_dtype dts[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
    tcase c;
    for (int t = 0; t < 2; ++t) {
        const flashc_dtype dt = dts[t];
        const char *dtn = kernel_dt(dt);
        route_mark mark;
        route_mark_set(&mark);
        setenv("FLASHC_SM80_SK_WIDE", "1", 1);
        c = base_case(dt, 128); c.b = 3; c.sq = 1; c.sk = 4112; c.hkv = 2; c.hq = 8; c.extra = 1;
        named(&c, "decode wide 4 rows sk4112"); run_case(c);
        c = base_case(dt, 128); c.b = 3; c.sq = 2; c.sk = 2048; c.hkv = 1; c.hq = 8; c.seqused = 1; c.causal = 1;
        c.wl = 300;
        { int lk[3] = {2048, 0, 1040}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode wide 16 rows seqused empty causal window"); run_case(c);
        c = base_case(dt, 128); c.b = 2; c.sq = 1; c.sk = 1024; c.hkv = 2; c.hq = 8; c.softcap = 6.0f;
        c.alibi = ALIBI_BH; c.bias = BIAS_FULL; c.lse = 1;
        named(&c, "decode wide softcap alibi bias lse"); run_case(c);
        c = base_case(dt, 128); c.b = 8; c.sq = 2; c.sk = 160; c.hkv = 4; c.hq = 16; c.out_dt = FLASHC_DTYPE_F16;
        named(&c, "decode wide 8 rows sk160 f16 out"); run_case(c);
        setenv("FLASHC_SM80_SPLITS", "2", 1);
        c = base_case(dt, 128); c.b = 2; c.sq = 4; c.sk = 1808; c.hkv = 2; c.hq = 8; c.causal = 1; c.lse = 1;
        named(&c, "decode wide forced 2 splits causal"); run_case(c);
        setenv("FLASHC_SM80_SPLITS", "3", 1);
        c = base_case(dt, 128); c.b = 3; c.sq = 1; c.sk = 2064; c.hkv = 2; c.hq = 4; c.seqused = 1;
        { int lk[3] = {2064, 0, 272}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode wide forced 3 splits seqused short"); run_case(c);
        setenv("FLASHC_SM80_SPLITS", "2", 1);
        c = base_case(dt, 128); c.b = 2; c.sq = 3; c.sk = 2064; c.hkv = 2; c.hq = 12; c.wl = 700;
        named(&c, "decode wide pair 18 rows forced 2 splits window"); run_case(c);
        unsetenv("FLASHC_SM80_SPLITS");
        c = base_case(dt, 128); c.b = 2; c.sq = 3; c.sk = 1808; c.hkv = 2; c.hq = 16; c.causal = 1; c.lse = 1;
        named(&c, "decode wide pair 24 rows causal lse"); run_case(c);
        c = base_case(dt, 128); c.b = 3; c.sq = 4; c.sk = 2048; c.hkv = 1; c.hq = 8; c.seqused = 1;
        c.softcap = 6.0f; c.alibi = ALIBI_BH; c.bias = BIAS_FULL;
        { int lk[3] = {2048, 0, 1040}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode wide pair 32 rows seqused empty softcap alibi bias"); run_case(c);
        expect_routef(&mark, "wide skf cases", "_%s_d128_m16_sk8_f$", dtn);
        route_mark_set(&mark);
        c = base_case(dt, 128); c.b = 3; c.kv = KV_PAGED; c.page_size = 256; c.sq = 2; c.hkv = 2; c.hq = 16;
        c.extra = 1;
        { int lk[3] = {2000, 0, 1001}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode wide paged ps256 16 rows"); run_case(c);
        const tcase wp_first = c;
        c = base_case(dt, 128); c.b = 2; c.kv = KV_PAGED; c.page_size = 512; c.sq = 1; c.hkv = 2; c.hq = 8;
        c.softcap = 6.0f; c.alibi = ALIBI_H; c.causal = 1;
        { int lk[2] = {1777, 2500}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode wide paged ps512 causal softcap alibi"); run_case(c);
        setenv("FLASHC_SM80_SPLITS", "3", 1);
        c = wp_first; c.extra = 0; c.lse = 1; c.wl = 500;
        named(&c, "decode wide paged ps256 forced 3 splits window"); run_case(c);
        unsetenv("FLASHC_SM80_SPLITS");
        c = wp_first; c.extra = 0; c.sq = 5; c.hq = 8; c.causal = 1;
        named(&c, "decode wide pair paged ps256 20 rows causal"); run_case(c);
        expect_routef(&mark, "wide skwp cases", "_%s_d128_m16_sk8_wp$", dtn);
        route_mark_set(&mark);
        c = base_case(dt, 128); c.b = 3; c.sq = 2; c.sk = 2001; c.hkv = 2; c.hq = 16; c.causal = 1; c.lse = 1;
        named(&c, "decode wide general sk2001 causal"); run_case(c);
        c = base_case(dt, 128); c.b = 3; c.kv = KV_VARLEN; c.sq = 1; c.hkv = 2; c.hq = 8; c.softcap = 5.0f;
        c.bias = BIAS_FULL;
        { int lk[3] = {1501, 77, 2093}; memcpy(c.seqlens_k, lk, sizeof lk); }
        named(&c, "decode wide general varlen softcap bias"); run_case(c);
        c.sq = 3; c.hq = 16; c.lse = 1;
        named(&c, "decode wide pair general varlen 24 rows softcap bias"); run_case(c);
        setenv("FLASHC_SM80_SK_WP", "0", 1);
        c = wp_first; c.extra = 0; named(&c, "decode wide general paged ps256"); run_case(c);
        unsetenv("FLASHC_SM80_SK_WP");
        unsetenv("FLASHC_SM80_SK_WIDE");
        expect_routef(&mark, "wide general cases", "_%s_d128_m16_sk8$", dtn);
        /* the rule at its threshold: b x h_kv x s_k = SK_WIDE_MIN_KEYS_PER_SM keys per SM takes the
           wide tile, one key less the 4-warp general one (an odd key count's V^T rows: not the
           lean loader) */
        const int sms = g_sms > 0 ? g_sms : H200_SMS, ctas = 2 * 36;
        const int sk_min = (int)(((long long)SK_WIDE_MIN_KEYS_PER_SM * sms + ctas - 1) / ctas);
        route_mark_set(&mark);
        c = base_case(dt, 128); c.b = 2; c.sq = 2; c.sk = sk_min; c.hkv = 36; c.hq = 72;
        named(&c, "decode wide rule at the threshold"); run_case(c);
        expect_routef(&mark, "wide rule case", "_%s_d128_m16_sk8", dtn);
        route_mark_set(&mark);
        c.sk = (sk_min - 1) % 16 ? sk_min - 1 : sk_min - 2;
        named(&c, "decode wide rule below the threshold"); run_case(c);
        /* (V rows: the lean loader takes any key count) */
        expect_routef(&mark, "wide rule below case", g_v_rows ? "_%s_d128_m16_sk_f$" : "_%s_d128_m16_sk$", dtn);
        /* the pair's rule: 24 rows (s_q 3, 8 query heads per KV head) over 1008 keys, 2 x b x h_kv
           CTAs at 1 x and 0.9 x the SMs (rounded up) take the pair, one KV head fewer or more the
           4-warp tile (two per KV head) */
        const int pair_hi = sms / 2, pair_lo = (int)ceil(SK_WIDE_PAIR_MIN_FILL * sms / 2);
        route_mark_set(&mark);
        c = base_case(dt, 128); c.b = 1; c.sq = 3; c.sk = 1008; c.hkv = pair_hi; c.hq = 8 * c.hkv;
        c.sm80_unsplit = 1; /* the pair's gain: one wave, no combine */
        named(&c, "decode wide pair rule one wave"); run_case(c);
        c.hkv = pair_lo; c.hq = 8 * c.hkv; c.causal = 1;
        named(&c, "decode wide pair rule 0.9 wave causal"); run_case(c);
        expect_routef(&mark, "wide pair rule cases", "_%s_d128_m16_sk8_f$", dtn);
        route_mark_set(&mark);
        c.hkv = pair_lo - 1; c.hq = 8 * c.hkv; c.causal = 0; c.sm80_unsplit = 0;
        named(&c, "decode wide pair rule below 0.9 wave"); run_case(c);
        c.hkv = pair_hi + 1; c.hq = 8 * c.hkv;
        named(&c, "decode wide pair rule past one wave"); run_case(c);
        expect_routef(&mark, "wide pair rule outside cases", "_%s_d128_m16_sk_f$", dtn);
        sm80_row_halves_cases(dt, dtn, pair_hi);
        sm80_sk32_wide_cases(dt, dtn);
    }
}

/* Forced key splits (FLASHC_SM80_SPLITS: 2, 3, 4 and 5; the default rule keeps one or two for these
   small batches) through the workspace and the combine grid, on every split-key route: the lean
   loader (_sk_f, with an empty sequence, determinism and graph capture), the general loader on
   varlen K/V, whole pages (_sk_wp), page-sub pages (16-bit _sk_pg, 8-bit _sk_pg16), 8-bit tiles of
   16 and 32 rows; splits whose share of key blocks is empty (a short sequence), causal, window,
   every score transform, LSE and f16 output. Each case twice: the splits' key blocks interleaved
   (the default: split s visits every splits-th block) and, FLASHC_SM80_SK_INTERLEAVE=0, in runs
   (names end in "runs"). */
static void sm80_forced_split_order(const char *order)
{
    tcase c;
    char what[96];
    for (int t = 0; t < 4; ++t)
        for (int d = 64; d <= 128; d *= 2) {
            const flashc_dtype dt = ALL_DTYPES[t];
            const int is8 = is_8bit(dt);
            if (g_v_rows && !is8) continue; /* the V-rows units: 8-bit only */
            const int g = is8 ? 4 : 8; /* query heads per KV head: 16-bit rows 8 s_q, 8-bit 4 s_q */
            if (g_quick && d != 128) continue;
            setenv("FLASHC_SM80_SPLITS", "2", 1);
            c = base_case(dt, d); c.b = 3; c.sq = is8 ? 1 : 3; c.sk = 2064; c.hkv = 2; c.hq = 2 * g; c.seqused = 1;
            c.extra = 1;
            { int lk[3] = {2064, 0, 1040}; memcpy(c.seqlens_k, lk, sizeof lk); }
            snprintf(what, sizeof what, "decode forced 2 splits seqused empty%s", order);
            named(&c, what); run_case(c);
            const tcase first = c;
            c = base_case(dt, d); c.b = 2; c.sq = 4; c.sk = 999; c.hkv = 2; c.hq = 2 * g; c.causal = 1; c.wl = 200;
            c.out_dt = FLASHC_DTYPE_F16;
            snprintf(what, sizeof what, "decode forced 2 splits causal window f16 out%s", order);
            named(&c, what); run_case(c);
            setenv("FLASHC_SM80_SPLITS", "3", 1);
            c = base_case(dt, d); c.b = 3; c.kv = KV_VARLEN; c.sq = 2; c.hkv = 2; c.hq = 2 * g; c.softcap = 6.0f;
            c.alibi = ALIBI_BH; c.bias = BIAS_FULL;
            { int lk[3] = {1501, 77, 2093}; memcpy(c.seqlens_k, lk, sizeof lk); }
            snprintf(what, sizeof what, "decode forced 3 splits varlen softcap alibi bias%s", order);
            named(&c, what); run_case(c);
            c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = is8 || d == 64 ? 128 : 64; c.sq = 1;
            c.hkv = 2; c.hq = 2 * g; c.causal = 1;
            { int lk[3] = {1500, 3, 2101}; memcpy(c.seqlens_k, lk, sizeof lk); }
            snprintf(what, sizeof what, "decode forced 3 splits whole pages%s", order);
            named(&c, what); run_case(c);
            setenv("FLASHC_SM80_SPLITS", "4", 1);
            c = base_case(dt, d); c.b = 3; c.kv = KV_PAGED; c.page_size = 16; c.sq = 4; c.hkv = 2; c.hq = 2 * g;
            c.wl = 700; c.lse = 1;
            { int lk[3] = {1501, 3, 2093}; memcpy(c.seqlens_k, lk, sizeof lk); }
            snprintf(what, sizeof what, "decode forced 4 splits paged ps16 %d rows window%s", 4 * g, order);
            named(&c, what); run_case(c);
            c = base_case(dt, d); c.b = 2; c.sq = is8 ? 8 : 4; c.sk = 3000; c.hkv = 1; c.hq = g; c.causal = 1;
            snprintf(what, sizeof what, "decode forced 4 splits %d rows causal%s", c.sq * g, order);
            named(&c, what); run_case(c);
            setenv("FLASHC_SM80_SPLITS", "5", 1);
            c = first; c.extra = 0;
            snprintf(what, sizeof what, "decode forced 5 splits seqused empty%s", order);
            named(&c, what); run_case(c);
            unsetenv("FLASHC_SM80_SPLITS");
        }
}

static void sm80_forced_split_cases(void)
{
    sm80_forced_split_order("");
    setenv("FLASHC_SM80_SK_INTERLEAVE", "0", 1);
    sm80_forced_split_order(" runs");
    unsetenv("FLASHC_SM80_SK_INTERLEAVE");
}

/* Causal prefill on the FWD_LPT_TAIL tiles (d64's 128-row lean-mask twins; d128's two-slab and
   8-warp lean-mask tiles; d256's staggered and 8-warp lean-mask tiles): the grid's last (head, batch)
   pairs launch m-major, heaviest m-block first (sm80_launch.cu sm80_lpt_tail_pairs). The default
   rule makes every pair of a small grid a tail pair, so FLASHC_SM80_LPT_TAIL=1 / 4 mixes
   pairs before the tail with tail pairs, and =0 runs no tail; FLASHC_SM80_TWO_SLAB=0 and
   FLASHC_SM80_KV_STAGGER=0 send d128 / d256 to their 8-warp tiles, a padded V (unequal K/V
   strides) to the general-loader _lm twins. */
static void sm80_lpt_cases(void)
{
    const flashc_dtype dts[2] = {FLASHC_DTYPE_BF16, FLASHC_DTYPE_F16};
    const char *tails[3] = {"1", "4", "0"};
    tcase c;
    for (int k = 0; k < 3; ++k) {
        setenv("FLASHC_SM80_LPT_TAIL", tails[k], 1);
        for (int t = 0; t < 2; ++t)
            for (int d = 64; d <= 256; d *= 2) {
                if (g_quick && (t != 0 || k == 2)) continue;
                for (int big = 0; big <= 1; ++big) {
                    /* big: d128 / d256 on their 8-warp tiles; every d: a padded V (the general-loader twin) */
                    const int eight = big && d > 64;
                    if (eight) { setenv("FLASHC_SM80_TWO_SLAB", "0", 1); setenv("FLASHC_SM80_KV_STAGGER", "0", 1); }
                    c = base_case(dts[t], d); c.b = 3; c.hq = 4; c.hkv = 2; c.sq = c.sk = 260; c.causal = 1; c.lse = 1;
                    c.vpad = big;
                    named(&c, big ? "lpt tail causal gqa lse v-padded" : "lpt tail causal gqa lse"); run_case(c);
                    if (big && !eight) continue; /* d64 has one tile */
                    c = base_case(dts[t], d); c.b = 2; c.hq = c.hkv = 3; c.sq = 300; c.sk = 333; c.causal = 1;
                    named(&c, eight ? "lpt tail causal 8-warp" : "lpt tail causal"); run_case(c);
                    c = base_case(dts[t], d); c.b = 3; c.q_varlen = 1; c.kv = KV_VARLEN; c.causal = 1; c.hq = c.hkv = 2;
                    { int lq[3] = {280, 0, 140}, lk[3] = {300, 50, 140}; memcpy(c.seqlens_q, lq, sizeof lq); memcpy(c.seqlens_k, lk, sizeof lk); }
                    named(&c, eight ? "lpt tail varlen causal 8-warp" : "lpt tail varlen causal"); run_case(c);
                    if (eight) { unsetenv("FLASHC_SM80_TWO_SLAB"); unsetenv("FLASHC_SM80_KV_STAGGER"); }
                }
            }
    }
    unsetenv("FLASHC_SM80_LPT_TAIL");
}

/* ---- Units: the suite's sections, run in order or one per process ---------------------------
   Each unit draws from its own RNG stream (the seed and the unit's index), so `--unit K` alone
   builds the same inputs as the whole run does. scripts/gpu_suite.sh runs the units as parallel
   processes: the fp64 reference, not the GPU, sets the suite's wall time. A unit holds whole
   sections, so their route expectations still hold in it. */
static const int UNIT_DIMS[3] = {64, 128, 256};

/* unit arg i: dtype ALL_DTYPES[i / 3], head dim UNIT_DIMS[i % 3]: the feature grid (and, 8-bit,
   the 8-bit cases) of one dtype and head dim */
static void dtype_dim_cases(int i)
{
    const flashc_dtype dt = ALL_DTYPES[i / 3];
    const int d = UNIT_DIMS[i % 3];
    if (!is_8bit(dt)) {
        if (g_quick && !(dt == FLASHC_DTYPE_BF16 || d == 128)) return;
        feature_cases(dt, d);
        return;
    }
    if (g_quick && d != 128) return;
    eight_bit_cases(dt, d);
    if (!g_quick || dt == FLASHC_DTYPE_FP8_E4M3) feature_cases(dt, d);
}

/* The V-rows units: unit i's feature grid (8-bit dtype x head dim, as dtype_dim_cases) with V in
   K's layout (the sm80 _vr twins) */
static void v_rows_dim_cases(int i)
{
    g_v_rows = 1;
    dtype_dim_cases(i);
    g_v_rows = 0;
}

/* The 8-bit tile sections with V in K's layout: t 0 / 1 the 128-row and 64-row tiles (fp8 / int8),
   2 the split-key decode tiles (16 / 32 rows, lean, whole-page, page-sub, wide, forced splits) */
static void v_rows_tile_cases(int t)
{
    g_v_rows = 1;
    if (t < 2) {
        sm80_8bit_tile_cases(t);
    } else {
        sm80_8bit_sk32_cases();
        sm80_sk_fast_cases();
        sm80_sk_page_cases();
        sm80_sk_wide_cases();
        sm80_forced_split_cases();
    }
    g_v_rows = 0;
}

static void quick_skipped_big_cases(void)
{
    if (!g_quick) big_cases();
}

/* outside the support matrix: a backend may refuse (skipped), but must not misbehave */
static void outside_matrix_cases(void)
{
    for (int k = 0; k < 2; ++k) {
        tcase c = base_case(FLASHC_DTYPE_BF16, k ? 96 : 32);
        c.causal = 1;
        named(&c, "outside matrix");
        run_case(c);
    }
}

/* Random combinations of every feature the grid tests one or two at a time: dtype, head dim (a
   few outside the matrix), output dtype, batched / varlen q, batched / varlen / paged K/V with any
   page size, zero-length sequences, seqused_k, GQA 1-8, decode and prefill sizes with tails,
   causal, windows, softcap, scale, bias of every broadcast and dtype, ALiBi, LSE, padded strides,
   both 8-bit V layouts. The seed (printed) and --unit reproduce a run; each case's name lists its
   choices. The CPU reference's work per case is capped, so the unit costs about one grid unit.
   Not in test_routes: its verdict must not depend on the seed. */
#define RANDOM_CASES 64
#define RANDOM_MAX_WORK 1.5e8 /* b * h_q * s_q * s_k * d of one case, for the fp64 reference */
static int rnd(int lo, int hi) { return (int)tu_rng_int(&g_rng, lo, hi); }

static void random_cases(void)
{
    if (ROUTES_ONLY) return;
    static const int dims[3] = {64, 128, 256}, dims_outside[2] = {32, 192};
    static const int groups[5] = {1, 2, 4, 8, 3};
    static const int page_sizes[9] = {1, 3, 8, 16, 32, 64, 128, 256, 257};
    static const flashc_dtype bias_dts[3] = {FLASHC_DTYPE_F32, FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16};
    const int n = (int)tu_env_int("FLASHC_GPU_RANDOM_CASES", RANDOM_CASES);
    for (int i = 0; i < n; ++i) {
        const flashc_dtype dt = ALL_DTYPES[rnd(0, 3)];
        tcase c = base_case(dt, rnd(0, 15) ? dims[rnd(0, 2)] : dims_outside[rnd(0, 1)]);
        const int is8 = is_8bit(dt), decode = rnd(0, 4) < 2;
        if (is8) {
            c.v_transposed = rnd(0, 1);
            c.out_dt = rnd(0, 1) ? FLASHC_DTYPE_BF16 : FLASHC_DTYPE_F16;
        } else if (rnd(0, 3) == 0) {
            c.out_dt = dt == FLASHC_DTYPE_BF16 ? FLASHC_DTYPE_F16 : FLASHC_DTYPE_BF16;
        }
        c.hkv = rnd(1, 4);
        c.hq = c.hkv * groups[rnd(0, 4)];
        c.kv = rnd(0, 2);
        c.q_varlen = rnd(0, 2) == 0;
        c.b = c.q_varlen || c.kv != KV_BATCHED ? rnd(1, MAX_B) : rnd(1, 4);
        const int max_q = decode ? 8 : 300, max_k = decode ? 4000 : 700;
        c.sq = rnd(1, max_q);
        c.sk = rnd(1, max_k);
        for (int k = 0; k < c.b; ++k) {
            c.seqlens_q[k] = rnd(0, 4) == 0 ? 0 : rnd(1, max_q);
            c.seqlens_k[k] = rnd(0, 4) == 0 ? 0 : rnd(1, max_k);
        }
        if (c.kv == KV_PAGED) c.page_size = page_sizes[rnd(0, 8)];
        c.seqused = c.kv != KV_PAGED && rnd(0, 3) == 0;
        c.causal = rnd(0, 2) == 0;
        c.wl = rnd(0, 3) == 0 ? rnd(0, 400) : -1;
        c.wr = !c.causal && rnd(0, 3) == 0 ? rnd(0, 200) : -1;
        c.softcap = rnd(0, 3) == 0 ? (float)tu_rng_uniform(&g_rng, 2.0, 30.0) : 0.0f;
        c.scale = rnd(0, 2) == 0 ? (float)tu_rng_uniform(&g_rng, 0.03, 0.3) : 0.0f;
        c.bias = rnd(0, 2) == 0 ? rnd(BIAS_FULL, BIAS_EXTENT1_B) : BIAS_NONE;
        c.bias_dt = bias_dts[rnd(0, 2)];
        c.alibi = rnd(0, 3) == 0 ? rnd(ALIBI_H, ALIBI_BH) : ALIBI_NONE;
        c.lse = rnd(0, 1);
        c.pad = rnd(0, 2) == 0;
        c.vpad = !c.v_transposed && rnd(0, 3) == 0;
        c.extra = rnd(0, 7) == 0;
        /* cap the reference's work: shrink the longest lengths until it fits */
        for (;;) {
            int lq = c.q_varlen ? 0 : c.sq, lk = c.kv == KV_BATCHED ? c.sk : 0;
            for (int k = 0; k < c.b; ++k) {
                if (c.q_varlen && c.seqlens_q[k] > lq) lq = c.seqlens_q[k];
                if (c.kv != KV_BATCHED && c.seqlens_k[k] > lk) lk = c.seqlens_k[k];
            }
            if ((double)c.b * c.hq * lq * lk * c.d <= RANDOM_MAX_WORK) break;
            c.sk = (c.sk + 1) / 2;
            c.sq = (c.sq + 1) / 2;
            for (int k = 0; k < c.b; ++k) {
                c.seqlens_k[k] = (c.seqlens_k[k] + 1) / 2;
                c.seqlens_q[k] = (c.seqlens_q[k] + 1) / 2;
            }
        }
        static const char *const kv_name[3] = {"batched", "varlen", "paged"};
        char what[160];
        snprintf(what, sizeof what, "random %d: out %s b%d sq%d%s sk%d %s%s ps%d h%d/%d c%d w%d/%d cap%.1f sc%.2f "
                 "bias%d/%s alibi%d lse%d pad%d/%d vt%d x%d", i, tu_dtype_name(c.out_dt), c.b, c.sq,
                 c.q_varlen ? " varlen" : "", c.sk, kv_name[c.kv], c.seqused ? " seqused" : "", c.page_size, c.hq,
                 c.hkv, c.causal, c.wl, c.wr, (double)c.softcap, (double)c.scale, c.bias, tu_dtype_name(c.bias_dt),
                 c.alibi, c.lse, c.pad, c.vpad, c.v_transposed, c.extra);
        named(&c, what);
        run_case(c);
    }
}

/* a unit runs `section`, or `indexed(arg)` */
typedef struct test_unit {
    const char *name;
    void (*section)(void);
    void (*indexed)(int arg);
    int arg;
} test_unit;

static const test_unit UNITS[] = {
    {"bf16 d64", NULL, dtype_dim_cases, 0}, {"bf16 d128", NULL, dtype_dim_cases, 1},
    {"bf16 d256", NULL, dtype_dim_cases, 2}, {"f16 d64", NULL, dtype_dim_cases, 3},
    {"f16 d128", NULL, dtype_dim_cases, 4}, {"f16 d256", NULL, dtype_dim_cases, 5},
    {"fp8 d64", NULL, dtype_dim_cases, 6}, {"fp8 d128", NULL, dtype_dim_cases, 7},
    {"fp8 d256", NULL, dtype_dim_cases, 8}, {"int8 d64", NULL, dtype_dim_cases, 9},
    {"int8 d128", NULL, dtype_dim_cases, 10}, {"int8 d256", NULL, dtype_dim_cases, 11},
    {"big", quick_skipped_big_cases, NULL, 0},
    {"tail split", tail_split_cases, NULL, 0},
    {"sm80 tiles", sm80_tile_cases, NULL, 0},
    {"sm80 8-bit tiles fp8", NULL, sm80_8bit_tile_cases, 0},
    {"sm80 8-bit tiles int8", NULL, sm80_8bit_tile_cases, 1},
    {"sm80 8-bit sk32", sm80_8bit_sk32_cases, NULL, 0},
    {"sm80 sk fast", sm80_sk_fast_cases, NULL, 0},
    {"sm80 wave split", sm80_wave_split_cases, NULL, 0},
    {"sm80 sk pages", sm80_sk_page_cases, NULL, 0},
    {"sm80 forced split", sm80_forced_split_cases, NULL, 0},
    {"sm80 sk wide", sm80_sk_wide_cases, NULL, 0},
    {"sm80 lpt", sm80_lpt_cases, NULL, 0},
    {"multi-wave", multi_wave_cases, NULL, 0},
    {"outside matrix", outside_matrix_cases, NULL, 0},
    /* 8-bit V in K's layout (v_transposed = 0): the grids and tile sections again */
    {"fp8 d64 v rows", NULL, v_rows_dim_cases, 6}, {"fp8 d128 v rows", NULL, v_rows_dim_cases, 7},
    {"fp8 d256 v rows", NULL, v_rows_dim_cases, 8}, {"int8 d64 v rows", NULL, v_rows_dim_cases, 9},
    {"int8 d128 v rows", NULL, v_rows_dim_cases, 10}, {"int8 d256 v rows", NULL, v_rows_dim_cases, 11},
    {"sm80 v rows tiles fp8", NULL, v_rows_tile_cases, 0}, {"sm80 v rows tiles int8", NULL, v_rows_tile_cases, 1},
    {"sm80 v rows decode", NULL, v_rows_tile_cases, 2},
    /* appended, so that the units before keep their indices (and their seeds' streams) */
    {"random", random_cases, NULL, 0},
    {"sm90 fp8", sm90_fp8_cases, NULL, 0},
    {"sm90 fp8 v rows", sm90_fp8_v_rows_cases, NULL, 0},
    {"sm90 windows", sm90_window_cases, NULL, 0},
    {"sm90 score mods", sm90_score_mod_cases, NULL, 0},
    {"sm90 varlen", sm90_varlen_cases, NULL, 0},
    {"sm90 paged", sm90_paged_cases, NULL, 0},
    {"sm90 decode", sm90_decode_cases, NULL, 0},
    {"sm90 decode v rows", sm90_decode_v_rows_cases, NULL, 0},
};
#define NUM_UNITS ((int)(sizeof UNITS / sizeof UNITS[0]))

/* unit k's stream: the seed with the index spread over all bits (tu_rng_init mixes it further) */
static void run_unit(int k)
{
    tu_rng_init(&g_rng, tu_seed() ^ (0x9E3779B97F4A7C15ull * (unsigned long long)(k + 1)));
    if (UNITS[k].section) UNITS[k].section();
    else UNITS[k].indexed(UNITS[k].arg);
}

int main(int argc, char **argv)
{
    /* line-buffered even into a log file: a run killed by a timeout keeps every FAIL it printed */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) g_quick = 1;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) g_filter = argv[++i];
        else if (!strcmp(argv[i], "--units")) { /* for the suite script: how many to run */
            printf("%d\n", NUM_UNITS);
            return 0;
        } else if (!strcmp(argv[i], "--unit") && i + 1 < argc) {
            char *end = NULL;
            const long k = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || k < 0 || k >= NUM_UNITS) {
                printf("--unit wants 0..%d, not %s\n", NUM_UNITS - 1, argv[i]);
                return 2;
            }
            g_unit = (int)k;
        }
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            const char *b = argv[++i];
            for (int k = 0; k < BE_COUNT; ++k) g_be_enabled[k] = !strcmp(b, BE_NAME[k]);
        } else {
            printf("usage: %s [--quick] [--backend sm80|sm90|auto] [--filter SUBSTR] [--unit K | --units]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0;
#if defined(TEST_GPU_DRYRUN) || defined(TEST_GPU_ROUTES)
    ndev = 1;
#else
    if (cudaGetDeviceCount(&ndev) != cudaSuccess) ndev = 0;
#endif
    if (ndev == 0) {
        cudaGetLastError();
        printf("no CUDA device: GPU suite skipped\n");
        printf("0 passed, 0 failed, 1 skipped\n");
        return 77;
    }
    if (ROUTES_ONLY) { /* no GPU: the H200's plans (ROUTE_DEVICE), the sm80 backend only */
        printf("routes: every case planned for the sm80 backend of an H200 (sm_90, %d SMs)\n", H200_SMS);
        unsetenv("FLASHC_SM80_SMEM_OPTIN"); /* would override both devices' opt-in and */
        unsetenv("FLASHC_SM80_AS_CC");      /* compute capability */
        g_cc = 90;
        g_sms = H200_SMS;
        for (int k = 0; k < BE_COUNT; ++k) g_be_enabled[k] = k == BE_SM80;
    } else {
        struct cudaDeviceProp prop;
        memset(&prop, 0, sizeof prop);
        if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
            printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
        g_cc = g_device_cc = prop.major * 10 + prop.minor;
        g_sms = prop.multiProcessorCount;
        /* the sm80 backend planning as an older GPU (dev/test hook FLASHC_SM80_AS_CC) */
        const flashc_device_info dev = {0, prop.major, prop.minor, prop.multiProcessorCount,
                                        (int)prop.sharedMemPerBlockOptin, prop.l2CacheSize, 0.0};
        const int cc = flashc_sm80_planned_cc(&dev);
        if (cc != g_cc) {
            printf("sm80 backend planned as sm_%d (FLASHC_SM80_AS_CC)\n", cc);
            g_cc = cc;
        }
        if (flashc_sm80_e4m3_native()) printf("e4m3 kernels built as sm_89's code (FLASHC_SM80_E4M3_NATIVE)\n");
    }
    (void)tu_seed(); /* prints the seed first */

    if (g_unit >= 0) {
        printf("unit %d of %d: %s\n", g_unit, NUM_UNITS, UNITS[g_unit].name);
        run_unit(g_unit);
    } else {
        for (int k = 0; k < NUM_UNITS; ++k) run_unit(k);
    }

    int pass = 0, fail = g_setup_fail, skip = 0;
    if (g_context_lost_in[0]) {
        printf("FAIL cuda: context lost in %s; %d later cases not run\n", g_context_lost_in, g_cases_not_run);
        ++fail;
    }
    printf("\nbackend   passed  failed  skipped\n");
    for (int be = 0; be < BE_COUNT; ++be) {
        if (!g_be_enabled[be]) continue;
        printf("%-8s %7d %7d %8d\n", BE_NAME[be], g_be_pass[be], g_be_fail[be], g_be_skip[be]);
        pass += g_be_pass[be];
        fail += g_be_fail[be];
        skip += g_be_skip[be];
    }
    static const char *k8_name[K8_COUNT] = {"fp8_e4m3", "int8", "fp8_e4m3 on the Hopper path"};
    for (int k = 0; k < K8_COUNT; ++k)
        if (g_k8_n[k])
            printf("8-bit kernel error (P quantisation + accumulation, rel RMS vs exact attention on the quantized "
                   "inputs), %s: mean %.4f, max %.4f (%s), %d runs\n",
                   k8_name[k], g_k8_sum[k] / g_k8_n[k], g_k8_max[k], g_k8_worst[k], g_k8_n[k]);
    report_unreached_routes();
    if (ROUTES_ONLY) {
        printf("sm90 route checks (cases that must run on / be refused by the Hopper path of an H200): %d, %d "
               "failed\n", g_sm90_route_checked, g_sm90_route_fail);
        fail += g_sm90_route_fail;
    }
    if (ROUTES_ONLY && !g_filter && !g_quick && g_unit < 0)
        fail += check_route_union() + route_hook_checks() + route_rule_checks() + route_sm90_decode_checks() +
                route_sm90_decode_split_checks();
    printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
    if (fail) return 1;
    if (pass == 0 && skip > 0) return 77;
    return 0;
}
