/*
 * Argument validation: one case per error path of src/validate.c (see docs/validation.md).
 *
 * Each failure case builds a valid CPU problem from small random host tensors (a "fixture"),
 * breaks one thing, and asserts for flashc_attention_forward, flashc_attention_check and
 * flashc_attention_workspace_size:
 *   - the exact status;
 *   - flashc_last_error() names the argument (substring match);
 *   - the poisoned out and lse buffers are byte-identical afterwards (nothing written);
 *   - flashc_validate() itself leaves its output problem untouched.
 * GPU alignment cases force FLASHC_BACKEND_SM80 on host buffers: validation must answer
 * MISALIGNED before the dispatcher needs a device.
 * Then valid edge cases run on the CPU backend (zero-length sequences, broadcast bias, paged,
 * transposed 8-bit V), and the normalised flashc_problem is checked field by field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flashc.h"
#include "problem.h"
#include "test_util.h"

/* Fixture sizes: small, odd, and GQA (h_q = 2 h_kv). */
#define FX_B 2
#define FX_SQ 5
#define FX_SK 7
#define FX_HQ 4
#define FX_HKV 2
#define FX_D 32
/* varlen fixture: 3 sequences, one with no queries, one with no keys */
#define FX_VL_B 3
#define FX_VL_TOTAL_Q 6
#define FX_VL_TOTAL_K 6
#define FX_VL_MAX_Q 4
#define FX_VL_MAX_K 3
/* paged fixture */
#define FX_NUM_PAGES 5
#define FX_PAGE_SIZE 4
#define FX_MAX_PAGES 3
/* transposed 8-bit V: sequence rows padded to 16 bytes, as the GPU paths need */
#define FX_VT_SEQ_STRIDE 16
#define FX_UNUSED_PAGE (-1) /* page_table entry past seqused_k: never read, so never checked */

typedef enum fx_kind { FX_BATCHED, FX_VARLEN, FX_PAGED, FX_INT8_VT } fx_kind;

typedef struct fx {
    tu_tensor q, k, v, out, lse, bias, alibi, descale[3];
    int32_t cu_q[FX_VL_B + 1], cu_k[FX_VL_B + 1];
    int32_t seqused[FX_VL_B];
    int32_t page_table[FX_B * FX_MAX_PAGES];
    flashc_attention_params p;
} fx;

static tu_rng g_rng;

static void fx_tensor_padded(tu_tensor *t, flashc_dtype dt, int32_t ndim, const int64_t *shape, const int64_t *pad,
                             int fill)
{
    if (tu_tensor_alloc(t, dt, ndim, shape, pad) != 0) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    if (!fill) return;
    if (dt == FLASHC_DTYPE_INT8)
        tu_tensor_fill_uniform(&g_rng, t, -100.0, 100.0);
    else
        tu_tensor_fill_uniform(&g_rng, t, -1.0, 1.0);
}

static void fx_tensor(tu_tensor *t, flashc_dtype dt, int32_t ndim, const int64_t *shape, int fill)
{
    fx_tensor_padded(t, dt, ndim, shape, NULL, fill);
}

/* A valid problem of the given kind: inputs random, out and lse poisoned. */
static void fx_build(fx *f, fx_kind kind)
{
    memset(f, 0, sizeof *f);
    flashc_attention_params *p = &f->p;
    flashc_attention_params_init(p);
    p->backend = FLASHC_BACKEND_CPU;
    const flashc_dtype in = kind == FX_INT8_VT ? FLASHC_DTYPE_INT8 : FLASHC_DTYPE_F16;

    if (kind == FX_VARLEN) {
        const int32_t cu_q[] = {0, 2, 2, 6}, cu_k[] = {0, 3, 6, 6};
        memcpy(f->cu_q, cu_q, sizeof cu_q);
        memcpy(f->cu_k, cu_k, sizeof cu_k);
        const int64_t qs[3] = {FX_VL_TOTAL_Q, FX_HQ, FX_D}, ks[3] = {FX_VL_TOTAL_K, FX_HKV, FX_D};
        const int64_t ls[2] = {FX_HQ, FX_VL_TOTAL_Q};
        fx_tensor(&f->q, in, 3, qs, 1);
        fx_tensor(&f->k, in, 3, ks, 1);
        fx_tensor(&f->v, in, 3, ks, 1);
        fx_tensor(&f->out, FLASHC_DTYPE_F16, 3, qs, 0);
        fx_tensor(&f->lse, FLASHC_DTYPE_F32, 2, ls, 0);
        p->batch = FX_VL_B;
        p->cu_seqlens_q = f->cu_q;
        p->cu_seqlens_k = f->cu_k;
        p->max_seqlen_q = FX_VL_MAX_Q;
        p->max_seqlen_k = FX_VL_MAX_K;
    } else {
        const int64_t qs[4] = {FX_B, FX_SQ, FX_HQ, FX_D}, ls[3] = {FX_B, FX_HQ, FX_SQ};
        fx_tensor(&f->q, in, 4, qs, 1);
        fx_tensor(&f->out, FLASHC_DTYPE_F16, 4, qs, 0);
        fx_tensor(&f->lse, FLASHC_DTYPE_F32, 3, ls, 0);
        if (kind == FX_PAGED) {
            const int64_t ks[4] = {FX_NUM_PAGES, FX_PAGE_SIZE, FX_HKV, FX_D};
            fx_tensor(&f->k, in, 4, ks, 1);
            fx_tensor(&f->v, in, 4, ks, 1);
            /* sequence 0 uses 7 keys (pages 3, 0), sequence 1 uses 6 (pages 1, 2). */
            const int32_t table[FX_B * FX_MAX_PAGES] = {3, 0, 4, 1, 2, FX_UNUSED_PAGE};
            memcpy(f->page_table, table, sizeof table);
            f->seqused[0] = 7;
            f->seqused[1] = 6;
            p->page_table = f->page_table;
            p->page_table_stride = FX_MAX_PAGES;
            p->max_pages_per_seq = FX_MAX_PAGES;
            p->seqused_k = f->seqused;
            p->max_seqlen_k = FX_MAX_PAGES * FX_PAGE_SIZE;
        } else {
            const int64_t ks[4] = {FX_B, FX_SK, FX_HKV, FX_D};
            fx_tensor(&f->k, in, 4, ks, 1);
            if (kind == FX_INT8_VT) {
                const int64_t vs[4] = {FX_B, FX_HKV, FX_D, FX_SK}, ds[2] = {FX_B, FX_HKV};
                const int64_t pad[4] = {0, 0, FX_VT_SEQ_STRIDE - FX_SK, 0};
                fx_tensor_padded(&f->v, in, 4, vs, pad, 1);
                p->v_transposed = 1;
                for (int i = 0; i < 3; ++i) {
                    fx_tensor(&f->descale[i], FLASHC_DTYPE_F32, 2, ds, 0);
                    tu_tensor_fill_uniform(&g_rng, &f->descale[i], 0.005, 0.02);
                }
                p->q_descale = f->descale[0].view;
                p->k_descale = f->descale[1].view;
                p->v_descale = f->descale[2].view;
            } else {
                fx_tensor(&f->v, in, 4, ks, 1);
            }
        }
    }
    p->q = f->q.view;
    p->k = f->k.view;
    p->v = f->v.view;
    p->out = f->out.view;
    p->lse = f->lse.view;
}

static void fx_free(fx *f)
{
    tu_tensor *all[] = {&f->q, &f->k, &f->v, &f->out, &f->lse, &f->bias, &f->alibi,
                        &f->descale[0], &f->descale[1], &f->descale[2]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tu_tensor_free(all[i]);
}

/* Optional inputs on a batched fixture (every one valid as added). */
static void fx_add_bias(fx *f, flashc_dtype dt, const int64_t shape[4])
{
    fx_tensor(&f->bias, dt, 4, shape, 1);
    f->p.bias = f->bias.view;
}

static void fx_add_alibi(fx *f, int32_t ndim, const int64_t *shape)
{
    fx_tensor(&f->alibi, FLASHC_DTYPE_F32, ndim, shape, 0);
    tu_tensor_fill_uniform(&g_rng, &f->alibi, 0.01, 0.5);
    f->p.alibi_slopes = f->alibi.view;
}

static void fx_add_descales(fx *f)
{
    const int64_t ds[2] = {FX_B, FX_HKV};
    for (int i = 0; i < 3; ++i) {
        fx_tensor(&f->descale[i], FLASHC_DTYPE_F32, 2, ds, 0);
        tu_tensor_fill_uniform(&g_rng, &f->descale[i], 0.5, 2.0);
    }
    f->p.q_descale = f->descale[0].view;
    f->p.k_descale = f->descale[1].view;
    f->p.v_descale = f->descale[2].view;
}

static const int64_t k_bias_full[4] = {FX_B, FX_HQ, FX_SQ, FX_SK};
static const int64_t k_alibi_h[1] = {FX_HQ};

/* ---- Failure cases ------------------------------------------------------------------------- */

typedef struct fail_case {
    const char *name;
    fx_kind kind;
    void (*brk)(fx *f);
    flashc_status want;
    const char *mention; /* substring flashc_last_error() must contain */
} fail_case;

/* Variadic: the body may contain commas (array initialisers). */
#define BREAK(fn, ...)                                                                             \
    static void fn(fx *f)                                                                          \
    {                                                                                              \
        flashc_attention_params *p = &f->p;                                                        \
        (void)p;                                                                                   \
        __VA_ARGS__                                                                                \
    }
/* Shift a pointer by n bytes (misalignment cases; validation fails before any read). */
#define OFFSET_BYTES(ptr, n) ((void *)((char *)(ptr) + (n)))

/* data and flags */
BREAK(brk_q_null, p->q.data = NULL;)
BREAK(brk_k_null, p->k.data = NULL;)
BREAK(brk_v_null, p->v.data = NULL;)
BREAK(brk_out_null, p->out.data = NULL;)
BREAK(brk_backend_high, p->backend = (flashc_backend)7;)
BREAK(brk_backend_neg, p->backend = (flashc_backend)-1;)
BREAK(brk_causal_2, p->causal = 2;)
BREAK(brk_vt_2, p->v_transposed = 2;)
/* ndim */
BREAK(brk_q_ndim, p->q.ndim = 3;)
BREAK(brk_q_ndim_bad, p->q.ndim = -1;)
BREAK(brk_k_ndim, p->k.ndim = 3;)
BREAK(brk_v_ndim, p->v.ndim = 3;)
BREAK(brk_out_ndim, p->out.ndim = 3;)
BREAK(brk_lse_ndim, p->lse.ndim = 2;)
BREAK(brk_varlen_q_ndim4, p->q.ndim = 4; p->q.shape[3] = FX_D;)
BREAK(brk_varlen_k_ndim4, p->k.ndim = 4; p->k.shape[3] = FX_D;)
/* shapes */
BREAK(brk_out_shape, p->out.shape[1] = FX_SQ - 1;)
BREAK(brk_v_shape_vs_k, p->v.shape[1] = FX_SK - 1;)
BREAK(brk_k_headdim, p->k.shape[3] = 64;)
BREAK(brk_v_headdim, p->v.shape[3] = 64;)
BREAK(brk_k_batch, p->k.shape[0] = 1; p->v.shape[0] = 1;)
BREAK(brk_batch_field, p->batch = 3;)
BREAK(brk_q_negative, p->q.shape[1] = -1;)
BREAK(brk_q_b0, p->q.shape[0] = 0; p->out.shape[0] = 0;)
BREAK(brk_hq_0, p->q.shape[2] = 0; p->out.shape[2] = 0;)
BREAK(brk_gqa, p->k.shape[2] = 3; p->v.shape[2] = 3;)
BREAK(brk_d_0, p->q.shape[3] = 0; p->k.shape[3] = 0; p->v.shape[3] = 0; p->out.shape[3] = 0;)
BREAK(brk_d_48, p->q.shape[3] = 48; p->k.shape[3] = 48; p->v.shape[3] = 48; p->out.shape[3] = 48;)
BREAK(brk_d_1024, p->q.shape[3] = 1024; p->k.shape[3] = 1024; p->v.shape[3] = 1024; p->out.shape[3] = 1024;)
BREAK(brk_q_huge, p->q.shape[0] = (int64_t)1 << 20; p->q.shape[1] = (int64_t)1 << 20; p->out.shape[0] = p->q.shape[0];
      p->out.shape[1] = p->q.shape[1]; p->k.shape[0] = p->q.shape[0]; p->v.shape[0] = p->q.shape[0];)
/* strides and spans beyond any buffer (2^56 bytes); lengths without room for a tile (2^31 - 2^16) */
BREAK(brk_q_stride_huge, p->q.stride[0] = (int64_t)1 << 60;)
BREAK(brk_k_span_huge, p->k.stride[1] = (int64_t)1 << 54; /* 2^55 bytes a row, 6 rows */)
BREAK(brk_bias_stride_huge, fx_add_bias(f, FLASHC_DTYPE_F32, k_bias_full); p->bias.stride[0] = (int64_t)1 << 60;)
BREAK(brk_vl_total_q_headroom, p->q.shape[0] = INT32_MAX - 100; p->out.shape[0] = INT32_MAX - 100;)
BREAK(brk_vl_max_q_huge, p->max_seqlen_q = INT32_MAX;)
BREAK(brk_vl_max_k_huge, p->max_seqlen_k = INT32_MAX;)
BREAK(brk_lse_shape, p->lse.shape[2] = FX_SQ + 1;)
BREAK(brk_lse_varlen_shape, p->lse.shape[1] = FX_VL_TOTAL_Q - 1;)
BREAK(brk_bias_shape, const int64_t s[4] = {FX_B, 3, FX_SQ, FX_SK}; fx_add_bias(f, FLASHC_DTYPE_F32, s);)
BREAK(brk_bias_rows, const int64_t s[4] = {FX_B, FX_HQ, FX_SQ + 1, FX_SK}; fx_add_bias(f, FLASHC_DTYPE_F32, s);)
BREAK(brk_bias_ndim, fx_add_bias(f, FLASHC_DTYPE_F32, k_bias_full); p->bias.ndim = 3;)
BREAK(brk_alibi_shape, const int64_t s[1] = {3}; fx_add_alibi(f, 1, s);)
BREAK(brk_alibi_b, const int64_t s[2] = {3, FX_HQ}; fx_add_alibi(f, 2, s);)
BREAK(brk_alibi_ndim, const int64_t s[3] = {FX_B, FX_HQ, 1}; fx_add_alibi(f, 3, s);)
BREAK(brk_descale_shape, fx_add_descales(f); p->k_descale.shape[0] = 3;)
BREAK(brk_descale_heads, fx_add_descales(f); p->v_descale.shape[1] = FX_HQ;)
BREAK(brk_descale_ndim, fx_add_descales(f); p->q_descale.ndim = 1;)
/* dtypes */
BREAK(brk_k_dtype, p->k.dtype = FLASHC_DTYPE_BF16;)
BREAK(brk_v_dtype, p->v.dtype = FLASHC_DTYPE_FP8_E4M3;)
BREAK(brk_in_f32, p->q.dtype = p->k.dtype = p->v.dtype = FLASHC_DTYPE_F32;)
BREAK(brk_in_unknown, p->q.dtype = p->k.dtype = p->v.dtype = (flashc_dtype)99;)
BREAK(brk_out_int8, p->out.dtype = FLASHC_DTYPE_INT8;)
BREAK(brk_out_f32_gpu, p->out.dtype = FLASHC_DTYPE_F32; p->backend = FLASHC_BACKEND_SM80;)
BREAK(brk_lse_dtype, p->lse.dtype = FLASHC_DTYPE_F16;)
BREAK(brk_bias_dtype, fx_add_bias(f, FLASHC_DTYPE_F32, k_bias_full); p->bias.dtype = FLASHC_DTYPE_INT8;)
BREAK(brk_alibi_dtype, fx_add_alibi(f, 1, k_alibi_h); p->alibi_slopes.dtype = FLASHC_DTYPE_F16;)
BREAK(brk_descale_dtype, fx_add_descales(f); p->q_descale.dtype = FLASHC_DTYPE_BF16;)
/* strides */
BREAK(brk_q_inner, p->q.stride[3] = 2;)
BREAK(brk_k_inner, p->k.stride[3] = 2;)
BREAK(brk_v_inner, p->v.stride[3] = 0;)
BREAK(brk_out_inner, p->out.stride[3] = 2;)
BREAK(brk_lse_inner, p->lse.stride[2] = 2;)
BREAK(brk_q_negstride, p->q.stride[1] = -p->q.stride[1];)
BREAK(brk_k_zerostride, p->k.stride[1] = 0;)
BREAK(brk_out_zerostride, p->out.stride[0] = 0;)
BREAK(brk_lse_zerostride, p->lse.stride[1] = 0;)
BREAK(brk_bias_inner, fx_add_bias(f, FLASHC_DTYPE_F32, k_bias_full); p->bias.stride[3] = 2;)
BREAK(brk_bias_neg, fx_add_bias(f, FLASHC_DTYPE_F32, k_bias_full); p->bias.stride[0] = -1;)
BREAK(brk_descale_neg, fx_add_descales(f); p->k_descale.stride[0] = -2;)
/* varlen */
BREAK(brk_vl_batch0, p->batch = 0;)
BREAK(brk_vl_maxq, p->max_seqlen_q = -1;)
BREAK(brk_vl_maxk, p->max_seqlen_k = -1;)
BREAK(brk_cuq_start, f->cu_q[0] = 1;)
BREAK(brk_cuq_decreasing, f->cu_q[2] = 1;)
BREAK(brk_cuq_end, f->cu_q[FX_VL_B] = FX_VL_TOTAL_Q + 1; p->max_seqlen_q = FX_VL_MAX_Q + 1;)
BREAK(brk_cuq_maxlen, p->max_seqlen_q = 3;)
BREAK(brk_cuk_start, f->cu_k[0] = -1;)
BREAK(brk_cuk_decreasing, f->cu_k[2] = 2;)
BREAK(brk_cuk_end, f->cu_k[FX_VL_B] = FX_VL_TOTAL_K + 2; f->cu_k[2] = FX_VL_TOTAL_K + 2; p->max_seqlen_k = FX_VL_TOTAL_K + 2;)
BREAK(brk_cuk_maxlen, p->max_seqlen_k = 2;)
BREAK(brk_cuq_misaligned, p->cu_seqlens_q = (const int32_t *)OFFSET_BYTES(f->cu_q, 2);)
BREAK(brk_vl_k_batched, p->cu_seqlens_k = NULL; /* k stays [total_k, h_kv, d] */)
BREAK(brk_vl_batched_k_count, const int64_t ks[4] = {FX_B, FX_SK, FX_HKV, FX_D}; p->cu_seqlens_k = NULL;
      p->k = flashc_make_tensor(f->k.alloc, FLASHC_DTYPE_F16, 4, ks); p->v = flashc_make_tensor(f->v.alloc, FLASHC_DTYPE_F16, 4, ks);)
BREAK(brk_vl_seqused, f->seqused[0] = 4; f->seqused[1] = 3; p->seqused_k = f->seqused;)
BREAK(brk_batched_seqused, f->seqused[0] = FX_SK + 1; p->seqused_k = f->seqused;)
BREAK(brk_batched_seqused_neg, f->seqused[1] = -1; p->seqused_k = f->seqused;)
/* paged */
BREAK(brk_pg_pagesize0, p->k.shape[1] = 0; p->v.shape[1] = 0;)
BREAK(brk_pg_numpages0, p->k.shape[0] = 0; p->v.shape[0] = 0;)
BREAK(brk_pg_seqused_null, p->seqused_k = NULL;)
BREAK(brk_pg_maxpages0, p->max_pages_per_seq = 0;)
BREAK(brk_pg_stride, p->page_table_stride = FX_MAX_PAGES - 1;)
BREAK(brk_pg_stride_huge, p->page_table_stride = (int64_t)1 << 60;)
BREAK(brk_pg_cu_k, p->cu_seqlens_k = f->cu_k;)
BREAK(brk_pg_seqused_cap, f->seqused[1] = FX_MAX_PAGES * FX_PAGE_SIZE + 1; p->max_seqlen_k = 2 * FX_MAX_PAGES * FX_PAGE_SIZE;)
BREAK(brk_pg_seqused_max, p->max_seqlen_k = 6;)
BREAK(brk_pg_seqused_neg, f->seqused[0] = -3;)
BREAK(brk_pg_entry_high, f->page_table[1] = FX_NUM_PAGES;)
BREAK(brk_pg_entry_neg, f->page_table[FX_MAX_PAGES + 1] = -1;)
BREAK(brk_pg_maxseqk_neg, p->max_seqlen_k = -1;)
BREAK(brk_pg_k_ndim, p->k.ndim = 3;)
/* v_transposed */
BREAK(brk_vt_f16, p->v_transposed = 1;)
BREAK(brk_vt_shape, p->v.shape[3] = FX_SK - 1;)
BREAK(brk_vt_dim, p->v.shape[2] = 64;)
BREAK(brk_vt_as_k, p->v = p->k;)
/* math */
BREAK(brk_wl, p->window_left = -2;)
BREAK(brk_wr, p->window_right = -5;)
BREAK(brk_causal_wr, p->causal = 1; p->window_right = 2;)
BREAK(brk_softcap_neg, p->softcap = -1.0f;)
BREAK(brk_softcap_nan, p->softcap = NAN;)
BREAK(brk_softcap_inf, p->softcap = INFINITY;)
BREAK(brk_scale_nan, p->softmax_scale = NAN;)
BREAK(brk_scale_neg, p->softmax_scale = -0.5f;)
BREAK(brk_scale_inf, p->softmax_scale = INFINITY;)
/* natural alignment (every backend) */
BREAK(brk_q_odd_byte, p->q.data = OFFSET_BYTES(p->q.data, 1);)
BREAK(brk_lse_misaligned, p->lse.data = OFFSET_BYTES(p->lse.data, 2);)
BREAK(brk_pt_misaligned, p->page_table = (const int32_t *)OFFSET_BYTES(f->page_table, 2);)
/* GPU alignment, forced SM80 on host buffers (checked before any device query) */
BREAK(brk_gpu_q_base, p->backend = FLASHC_BACKEND_SM80; p->q.data = OFFSET_BYTES(p->q.data, 2);)
BREAK(brk_gpu_k_base, p->backend = FLASHC_BACKEND_SM80; p->k.data = OFFSET_BYTES(p->k.data, 2);)
BREAK(brk_gpu_v_base, p->backend = FLASHC_BACKEND_SM80; p->v.data = OFFSET_BYTES(p->v.data, 2);)
BREAK(brk_gpu_out_base, p->backend = FLASHC_BACKEND_SM80; p->out.data = OFFSET_BYTES(p->out.data, 2);)
BREAK(brk_gpu_q_stride, p->backend = FLASHC_BACKEND_SM90; p->q.stride[1] += 1;)
BREAK(brk_gpu_out_stride, p->backend = FLASHC_BACKEND_SM80; p->out.stride[2] += 4;)
BREAK(brk_gpu_varlen_stride, p->backend = FLASHC_BACKEND_SM80; p->k.stride[0] += 2;)
BREAK(brk_gpu_int8_stride, p->backend = FLASHC_BACKEND_SM80; p->k.stride[1] += 8; /* 8 bytes, not 16 */)
/* V^T rows (stride[2]) may have any length (the kernel gathers unaligned chunks); the outer strides
   still move 16-byte vectors */
BREAK(brk_gpu_vt_stride, p->backend = FLASHC_BACKEND_SM80; p->v.stride[0] += 8; /* 8 bytes */)
BREAK(brk_gpu_bf16_out_q4, p->backend = FLASHC_BACKEND_SM80; p->out.dtype = FLASHC_DTYPE_BF16;
      p->q.data = OFFSET_BYTES(p->q.data, 4);)

#define INV FLASHC_STATUS_INVALID_ARGUMENT
#define DTM FLASHC_STATUS_DTYPE_MISMATCH
#define MIS FLASHC_STATUS_MISALIGNED
#define NSP FLASHC_STATUS_NOT_SUPPORTED

static const fail_case k_cases[] = {
    {"q.data NULL", FX_BATCHED, brk_q_null, INV, "q.data"},
    {"k.data NULL", FX_BATCHED, brk_k_null, INV, "k.data"},
    {"v.data NULL", FX_BATCHED, brk_v_null, INV, "v.data"},
    {"out.data NULL", FX_BATCHED, brk_out_null, INV, "out.data"},
    {"backend 7", FX_BATCHED, brk_backend_high, INV, "backend"},
    {"backend -1", FX_BATCHED, brk_backend_neg, INV, "backend"},
    {"causal 2", FX_BATCHED, brk_causal_2, INV, "causal"},
    {"v_transposed 2", FX_BATCHED, brk_vt_2, INV, "v_transposed"},

    {"q.ndim 3 batched", FX_BATCHED, brk_q_ndim, INV, "q.ndim"},
    {"q.ndim -1 (make_tensor reject)", FX_BATCHED, brk_q_ndim_bad, INV, "q.ndim"},
    {"k.ndim 3 batched", FX_BATCHED, brk_k_ndim, INV, "k.ndim"},
    {"v.ndim", FX_BATCHED, brk_v_ndim, INV, "v.ndim"},
    {"out.ndim", FX_BATCHED, brk_out_ndim, INV, "out.ndim"},
    {"lse.ndim", FX_BATCHED, brk_lse_ndim, INV, "lse.ndim"},
    {"q.ndim 4 varlen", FX_VARLEN, brk_varlen_q_ndim4, INV, "cu_seqlens_q"},
    {"k.ndim 4 varlen", FX_VARLEN, brk_varlen_k_ndim4, INV, "k.ndim"},

    {"out shape vs q", FX_BATCHED, brk_out_shape, INV, "out.shape[1]"},
    {"v shape vs k", FX_BATCHED, brk_v_shape_vs_k, INV, "v.shape[1]"},
    {"k head dim", FX_BATCHED, brk_k_headdim, INV, "k.shape[3]"},
    {"v head dim", FX_BATCHED, brk_v_headdim, INV, "v.shape[3]"},
    {"k batch", FX_BATCHED, brk_k_batch, INV, "k.shape[0]"},
    {"batch field vs q.shape[0]", FX_BATCHED, brk_batch_field, INV, "batch"},
    {"negative extent", FX_BATCHED, brk_q_negative, INV, "q.shape[1]"},
    {"b = 0", FX_BATCHED, brk_q_b0, INV, "q.shape[0]"},
    {"h_q = 0", FX_BATCHED, brk_hq_0, INV, "q.shape[2]"},
    {"h_kv does not divide h_q", FX_BATCHED, brk_gqa, INV, "k.shape[2] (h_kv = 3) must divide q.shape[2]"},
    {"d = 0", FX_BATCHED, brk_d_0, INV, "q.shape[3]"},
    {"d = 48", FX_BATCHED, brk_d_48, NSP, "q.shape[3]"},
    {"d = 1024", FX_BATCHED, brk_d_1024, INV, "q.shape[3]"},
    {"b * s_q overflows int32", FX_BATCHED, brk_q_huge, INV, "q.shape"},
    {"q stride of 2^60 elements", FX_BATCHED, brk_q_stride_huge, INV, "q.stride[0]"},
    {"k spans more than 2^56 bytes", FX_BATCHED, brk_k_span_huge, INV, "k spans"},
    {"bias stride of 2^60 elements", FX_BATCHED, brk_bias_stride_huge, INV, "bias.stride[0]"},
    {"varlen total_q without tile headroom", FX_VARLEN, brk_vl_total_q_headroom, INV, "q.shape"},
    {"max_seqlen_q = INT32_MAX", FX_VARLEN, brk_vl_max_q_huge, INV, "max_seqlen_q"},
    {"max_seqlen_k = INT32_MAX", FX_VARLEN, brk_vl_max_k_huge, INV, "max_seqlen_k"},
    {"lse shape batched", FX_BATCHED, brk_lse_shape, INV, "lse.shape[2]"},
    {"lse shape varlen", FX_VARLEN, brk_lse_varlen_shape, INV, "lse.shape[1]"},
    {"bias heads not broadcastable", FX_BATCHED, brk_bias_shape, INV, "bias.shape[1]"},
    {"bias rows", FX_BATCHED, brk_bias_rows, INV, "bias.shape[2]"},
    {"bias ndim", FX_BATCHED, brk_bias_ndim, INV, "bias.ndim"},
    {"alibi [3] for h_q 4", FX_BATCHED, brk_alibi_shape, INV, "alibi_slopes.shape[0]"},
    {"alibi [3, h_q] for b 2", FX_BATCHED, brk_alibi_b, INV, "alibi_slopes.shape[0]"},
    {"alibi ndim 3", FX_BATCHED, brk_alibi_ndim, INV, "alibi_slopes.ndim"},
    {"k_descale batch", FX_BATCHED, brk_descale_shape, INV, "k_descale.shape[0]"},
    {"v_descale heads", FX_BATCHED, brk_descale_heads, INV, "v_descale.shape[1]"},
    {"q_descale ndim", FX_BATCHED, brk_descale_ndim, INV, "q_descale.ndim"},

    {"k dtype", FX_BATCHED, brk_k_dtype, DTM, "k.dtype"},
    {"v dtype", FX_BATCHED, brk_v_dtype, DTM, "v.dtype"},
    {"input f32", FX_BATCHED, brk_in_f32, DTM, "q.dtype"},
    {"input unknown dtype", FX_BATCHED, brk_in_unknown, DTM, "q.dtype"},
    {"out int8", FX_BATCHED, brk_out_int8, DTM, "out.dtype"},
    {"out f32 on SM80", FX_BATCHED, brk_out_f32_gpu, DTM, "out.dtype"},
    {"lse f16", FX_BATCHED, brk_lse_dtype, DTM, "lse.dtype"},
    {"bias int8", FX_BATCHED, brk_bias_dtype, DTM, "bias.dtype"},
    {"alibi f16", FX_BATCHED, brk_alibi_dtype, DTM, "alibi_slopes.dtype"},
    {"q_descale bf16", FX_BATCHED, brk_descale_dtype, DTM, "q_descale.dtype"},

    {"q innermost stride", FX_BATCHED, brk_q_inner, INV, "q.stride[3]"},
    {"k innermost stride", FX_BATCHED, brk_k_inner, INV, "k.stride[3]"},
    {"v innermost stride 0", FX_BATCHED, brk_v_inner, INV, "v.stride[3]"},
    {"out innermost stride", FX_BATCHED, brk_out_inner, INV, "out.stride[3]"},
    {"lse innermost stride", FX_BATCHED, brk_lse_inner, INV, "lse.stride[2]"},
    {"q negative stride", FX_BATCHED, brk_q_negstride, INV, "q.stride[1]"},
    {"k zero stride", FX_BATCHED, brk_k_zerostride, INV, "k.stride[1]"},
    {"out zero stride", FX_BATCHED, brk_out_zerostride, INV, "out.stride[0]"},
    {"lse zero stride", FX_BATCHED, brk_lse_zerostride, INV, "lse.stride[1]"},
    {"bias innermost stride", FX_BATCHED, brk_bias_inner, INV, "bias.stride[3]"},
    {"bias negative stride", FX_BATCHED, brk_bias_neg, INV, "bias.stride[0]"},
    {"descale negative stride", FX_BATCHED, brk_descale_neg, INV, "k_descale.stride[0]"},

    {"varlen batch 0", FX_VARLEN, brk_vl_batch0, INV, "batch"},
    {"max_seqlen_q < 0", FX_VARLEN, brk_vl_maxq, INV, "max_seqlen_q"},
    {"max_seqlen_k < 0", FX_VARLEN, brk_vl_maxk, INV, "max_seqlen_k"},
    {"cu_seqlens_q[0] != 0", FX_VARLEN, brk_cuq_start, INV, "cu_seqlens_q[0]"},
    {"cu_seqlens_q decreasing", FX_VARLEN, brk_cuq_decreasing, INV, "cu_seqlens_q[2]"},
    {"cu_seqlens_q past total_q", FX_VARLEN, brk_cuq_end, INV, "cu_seqlens_q[3]"},
    {"cu_seqlens_q length > max_seqlen_q", FX_VARLEN, brk_cuq_maxlen, INV, "max_seqlen_q"},
    {"cu_seqlens_k[0] != 0", FX_VARLEN, brk_cuk_start, INV, "cu_seqlens_k[0]"},
    {"cu_seqlens_k decreasing", FX_VARLEN, brk_cuk_decreasing, INV, "cu_seqlens_k[2]"},
    {"cu_seqlens_k past total_k", FX_VARLEN, brk_cuk_end, INV, "cu_seqlens_k[3]"},
    {"cu_seqlens_k length > max_seqlen_k", FX_VARLEN, brk_cuk_maxlen, INV, "max_seqlen_k"},
    {"cu_seqlens_q misaligned", FX_VARLEN, brk_cuq_misaligned, MIS, "cu_seqlens_q"},
    {"varlen q, 3-d k without cu_seqlens_k", FX_VARLEN, brk_vl_k_batched, INV, "cu_seqlens_k"},
    {"varlen q, batched k with b != batch", FX_VARLEN, brk_vl_batched_k_count, INV, "k.shape[0]"},
    {"varlen seqused_k > sequence length", FX_VARLEN, brk_vl_seqused, INV, "seqused_k[0]"},
    {"batched seqused_k > s_k", FX_BATCHED, brk_batched_seqused, INV, "seqused_k[0]"},
    {"batched seqused_k < 0", FX_BATCHED, brk_batched_seqused_neg, INV, "seqused_k[1]"},

    {"page_size 0", FX_PAGED, brk_pg_pagesize0, INV, "page_size"},
    {"num_pages 0", FX_PAGED, brk_pg_numpages0, INV, "num_pages"},
    {"paged without seqused_k", FX_PAGED, brk_pg_seqused_null, INV, "seqused_k"},
    {"max_pages_per_seq 0", FX_PAGED, brk_pg_maxpages0, INV, "max_pages_per_seq"},
    {"page_table_stride < max_pages_per_seq", FX_PAGED, brk_pg_stride, INV, "page_table_stride"},
    {"page table spans more than 2^56 bytes", FX_PAGED, brk_pg_stride_huge, INV, "page_table_stride"},
    {"paged with cu_seqlens_k", FX_PAGED, brk_pg_cu_k, INV, "cu_seqlens_k"},
    {"seqused_k > page capacity", FX_PAGED, brk_pg_seqused_cap, INV, "max_pages_per_seq * page_size"},
    {"seqused_k > max_seqlen_k", FX_PAGED, brk_pg_seqused_max, INV, "max_seqlen_k"},
    {"paged seqused_k < 0", FX_PAGED, brk_pg_seqused_neg, INV, "seqused_k[0]"},
    {"page_table entry >= num_pages", FX_PAGED, brk_pg_entry_high, INV, "page_table[0][1]"},
    {"page_table entry < 0", FX_PAGED, brk_pg_entry_neg, INV, "page_table[1][1]"},
    {"paged max_seqlen_k < 0", FX_PAGED, brk_pg_maxseqk_neg, INV, "max_seqlen_k"},
    {"paged k.ndim 3", FX_PAGED, brk_pg_k_ndim, INV, "k.ndim"},

    {"v_transposed with f16", FX_BATCHED, brk_vt_f16, INV, "v_transposed"},
    {"v_transposed seq extent", FX_INT8_VT, brk_vt_shape, INV, "v.shape[3]"},
    {"v_transposed head dim", FX_INT8_VT, brk_vt_dim, INV, "v.shape[2]"},
    {"v_transposed given k's layout", FX_INT8_VT, brk_vt_as_k, INV, "v.shape[1]"},

    {"window_left -2", FX_BATCHED, brk_wl, INV, "window_left"},
    {"window_right -5", FX_BATCHED, brk_wr, INV, "window_right"},
    {"causal with window_right 2", FX_BATCHED, brk_causal_wr, INV, "inconsistent window/causal"},
    {"softcap < 0", FX_BATCHED, brk_softcap_neg, INV, "softcap"},
    {"softcap NaN", FX_BATCHED, brk_softcap_nan, INV, "softcap"},
    {"softcap inf", FX_BATCHED, brk_softcap_inf, INV, "softcap"},
    {"softmax_scale NaN", FX_BATCHED, brk_scale_nan, INV, "softmax_scale"},
    {"softmax_scale < 0", FX_BATCHED, brk_scale_neg, INV, "softmax_scale"},
    {"softmax_scale inf", FX_BATCHED, brk_scale_inf, INV, "softmax_scale"},

    {"q.data odd byte", FX_BATCHED, brk_q_odd_byte, MIS, "q.data"},
    {"lse.data misaligned", FX_BATCHED, brk_lse_misaligned, MIS, "lse.data"},
    {"page_table misaligned", FX_PAGED, brk_pt_misaligned, MIS, "page_table"},

    {"SM80 q base +2 bytes", FX_BATCHED, brk_gpu_q_base, MIS, "q.data"},
    {"SM80 k base +2 bytes", FX_BATCHED, brk_gpu_k_base, MIS, "k.data"},
    {"SM80 v base +2 bytes", FX_BATCHED, brk_gpu_v_base, MIS, "v.data"},
    {"SM80 out base +2 bytes", FX_BATCHED, brk_gpu_out_base, MIS, "out.data"},
    {"SM90 q row stride not 16 bytes", FX_BATCHED, brk_gpu_q_stride, MIS, "q.stride[1]"},
    {"SM80 out head stride not 16 bytes", FX_BATCHED, brk_gpu_out_stride, MIS, "out.stride[2]"},
    {"SM80 varlen k row stride", FX_VARLEN, brk_gpu_varlen_stride, MIS, "k.stride[0]"},
    {"SM80 int8 k stride 8 bytes", FX_INT8_VT, brk_gpu_int8_stride, MIS, "k.stride[1]"},
    {"SM80 transposed v batch stride", FX_INT8_VT, brk_gpu_vt_stride, MIS, "v.stride[0]"},
    {"SM80 bf16 out, q base +4 bytes", FX_BATCHED, brk_gpu_bf16_out_q4, MIS, "q.data"},
};

static int mentions(const char *msg, const char *what) { return msg && strstr(msg, what) != NULL; }

static void *snapshot(const tu_tensor *t)
{
    void *copy = malloc(t->bytes);
    if (!copy) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    memcpy(copy, t->alloc, t->bytes);
    return copy;
}

/* One entry point, one case: status, message, nothing written. */
static void expect_status(const char *name, const char *entry, flashc_status got, flashc_status want,
                          const char *mention)
{
    const char *msg = flashc_last_error();
    TEST_CHECK(got == want, "%s: %s returned %s, want %s (message: \"%s\")", name, entry, flashc_status_string(got),
               flashc_status_string(want), msg);
    TEST_CHECK(mentions(msg, mention), "%s: %s message \"%s\" does not mention \"%s\"", name, entry, msg, mention);
}

static void run_fail_case(const fail_case *c)
{
    fx f;
    fx_build(&f, c->kind);
    c->brk(&f);
    void *out0 = snapshot(&f.out), *lse0 = snapshot(&f.lse);

    expect_status(c->name, "forward", flashc_attention_forward(&f.p, NULL, 0, NULL), c->want, c->mention);
    expect_status(c->name, "check", flashc_attention_check(&f.p), c->want, c->mention);
    size_t bytes = 12345;
    expect_status(c->name, "workspace_size", flashc_attention_workspace_size(&f.p, &bytes), c->want, c->mention);
    TEST_CHECK(bytes == 12345, "%s: workspace_size wrote *bytes on failure", c->name);
    TEST_CHECK(memcmp(out0, f.out.alloc, f.out.bytes) == 0, "%s: out was written on failure", c->name);
    TEST_CHECK(memcmp(lse0, f.lse.alloc, f.lse.bytes) == 0, "%s: lse was written on failure", c->name);

    /* flashc_validate itself: *out untouched when it fails. */
    flashc_problem prob, prob0;
    memset(&prob, 0xA5, sizeof prob);
    memcpy(&prob0, &prob, sizeof prob);
    if (flashc_validate(&f.p, &prob) != FLASHC_STATUS_SUCCESS)
        TEST_CHECK(memcmp(&prob, &prob0, sizeof prob) == 0, "%s: flashc_validate wrote *out on failure", c->name);
    free(out0);
    free(lse0);
    fx_free(&f);
}

static void test_null_params(void)
{
    expect_status("NULL params", "forward", flashc_attention_forward(NULL, NULL, 0, NULL), INV, "params");
    expect_status("NULL params", "check", flashc_attention_check(NULL), INV, "params");
    flashc_problem prob, prob0;
    memset(&prob, 0x5A, sizeof prob);
    memcpy(&prob0, &prob, sizeof prob);
    TEST_CHECK(flashc_validate(NULL, &prob) == INV && memcmp(&prob, &prob0, sizeof prob) == 0,
               "flashc_validate(NULL) must fail and leave *out untouched");
}

/* The unbroken fixtures pass the check; on SM80 they get past alignment (to NO_DEVICE here). */
static void test_fixtures_valid(void)
{
    const fx_kind kinds[] = {FX_BATCHED, FX_VARLEN, FX_PAGED, FX_INT8_VT};
    const char *names[] = {"batched", "varlen", "paged", "int8 v_transposed"};
    for (int i = 0; i < 4; ++i) {
        fx f;
        fx_build(&f, kinds[i]);
        flashc_status st = flashc_attention_check(&f.p);
        TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "fixture %s: check returned %s (%s)", names[i],
                   flashc_status_string(st), flashc_last_error());
        f.p.backend = FLASHC_BACKEND_SM80;
        st = flashc_attention_check(&f.p);
        /* No device: NO_DEVICE. With one: the dispatcher refuses host memory (INVALID, after
           validation), or a path reports NOT_SUPPORTED. Never MISALIGNED or DTYPE_MISMATCH. */
        const int ok = st == FLASHC_STATUS_NO_DEVICE || st == FLASHC_STATUS_NOT_SUPPORTED ||
                       st == FLASHC_STATUS_SUCCESS || (st == INV && mentions(flashc_last_error(), "host memory"));
        TEST_CHECK(ok, "fixture %s on SM80: aligned host buffers must pass validation, got %s (%s)", names[i],
                   flashc_status_string(st), flashc_last_error());
        fx_free(&f);
    }
}

/* ---- Valid edge cases (CPU backend runs) ------------------------------------------------- */

/* Every logical element of out is written and finite; lse finite or -inf (no keys). */
static int64_t count_unwritten(const tu_tensor *t, int allow_neg_inf)
{
    int64_t n = tu_numel(&t->view), bad = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t off = tu_offset(&t->view, i);
        double v = tu_decode(t->view.dtype, t->view.data, off);
        if (tu_is_poison(t->view.dtype, t->view.data, off) || isnan(v) || (isinf(v) && !(allow_neg_inf && v < 0)))
            ++bad;
    }
    return bad;
}

static void run_ok(const char *name, fx *f)
{
    flashc_status st = flashc_attention_forward(&f->p, NULL, 0, NULL);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "%s: forward returned %s (%s)", name, flashc_status_string(st),
               flashc_last_error());
    TEST_CHECK(flashc_last_error()[0] == '\0', "%s: last error not cleared: \"%s\"", name, flashc_last_error());
    if (st != FLASHC_STATUS_SUCCESS) return;
    TEST_CHECK(count_unwritten(&f->out, 0) == 0, "%s: out has unwritten or non-finite elements", name);
    TEST_CHECK(count_unwritten(&f->lse, 1) == 0, "%s: lse has unwritten or NaN elements", name);
    TEST_CHECK(tu_tensor_poison_intact(&f->out) == 0 && tu_tensor_poison_intact(&f->lse) == 0,
               "%s: wrote outside the out/lse views", name);
}

static void test_valid_basic(void)
{
    const fx_kind kinds[] = {FX_BATCHED, FX_PAGED, FX_INT8_VT};
    const char *names[] = {"valid batched", "valid paged (unused page_table entry -1)", "valid int8 v_transposed"};
    for (int i = 0; i < 3; ++i) {
        fx f;
        fx_build(&f, kinds[i]);
        run_ok(names[i], &f);
        fx_free(&f);
    }
}

/* Varlen with a sequence of no queries and one of no keys: those rows are 0 with LSE -inf. */
static void test_valid_zero_length_varlen(void)
{
    fx f;
    fx_build(&f, FX_VARLEN);
    run_ok("varlen zero-length sequences", &f);
    int64_t bad = 0;
    for (int32_t row = f.cu_q[2]; row < f.cu_q[3]; ++row)
        for (int h = 0; h < FX_HQ; ++h) {
            const int64_t lse_off = h * f.lse.view.stride[0] + row;
            if (!isinf(((const float *)f.lse.alloc)[lse_off]) || ((const float *)f.lse.alloc)[lse_off] > 0) ++bad;
            for (int d = 0; d < FX_D; ++d)
                if (tu_decode(FLASHC_DTYPE_F16, f.out.alloc, row * f.out.view.stride[0] + h * f.out.view.stride[1] + d) != 0.0)
                    ++bad;
        }
    TEST_CHECK(bad == 0, "varlen: rows of a sequence without keys must be 0 with lse -inf (%lld bad)", (long long)bad);
    fx_free(&f);
}

/* Batched with s_q = 0 (no work) and with s_k = 0 (every row empty). */
static void test_valid_empty_batched(void)
{
    fx f;
    fx_build(&f, FX_BATCHED);
    f.p.q.shape[1] = f.p.out.shape[1] = f.p.lse.shape[2] = 0;
    void *out0 = snapshot(&f.out);
    flashc_status st = flashc_attention_forward(&f.p, NULL, 0, NULL);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "s_q = 0: forward returned %s (%s)", flashc_status_string(st),
               flashc_last_error());
    TEST_CHECK(memcmp(out0, f.out.alloc, f.out.bytes) == 0, "s_q = 0: out must not be written");
    free(out0);
    fx_free(&f);

    fx_build(&f, FX_BATCHED);
    f.p.k.shape[1] = f.p.v.shape[1] = 0;
    run_ok("s_k = 0", &f);
    int64_t n = tu_numel(&f.out.view), nonzero = 0;
    for (int64_t i = 0; i < n; ++i) nonzero += tu_decode(FLASHC_DTYPE_F16, f.out.alloc, i) != 0.0;
    for (int64_t i = 0; i < tu_numel(&f.lse.view); ++i) nonzero += !isinf(((const float *)f.lse.alloc)[i]);
    TEST_CHECK(nonzero == 0, "s_k = 0: out must be 0 and lse -inf (%lld bad)", (long long)nonzero);
    fx_free(&f);
}

/* The same [s_q, s_k] bias broadcast by stride 0 and by extent 1 gives the same output. */
static void test_valid_bias_broadcast(void)
{
    tu_tensor bias;
    const int64_t plane[2] = {FX_SQ, FX_SK};
    fx_tensor(&bias, FLASHC_DTYPE_F32, 2, plane, 1);
    const int64_t by_stride_shape[4] = {FX_B, FX_HQ, FX_SQ, FX_SK}, by_stride[4] = {0, 0, FX_SK, 1};
    const int64_t by_extent_shape[4] = {1, 1, FX_SQ, FX_SK};

    fx a, b;
    fx_build(&a, FX_BATCHED);
    fx_build(&b, FX_BATCHED);
    memcpy(b.q.alloc, a.q.alloc, a.q.bytes);
    memcpy(b.k.alloc, a.k.alloc, a.k.bytes);
    memcpy(b.v.alloc, a.v.alloc, a.v.bytes);
    a.p.bias = flashc_make_tensor(bias.alloc, FLASHC_DTYPE_F32, 4, by_stride_shape);
    memcpy(a.p.bias.stride, by_stride, sizeof by_stride);
    b.p.bias = flashc_make_tensor(bias.alloc, FLASHC_DTYPE_F32, 4, by_extent_shape);

    flashc_problem pa, pb;
    TEST_CHECK(flashc_validate(&a.p, &pa) == FLASHC_STATUS_SUCCESS && flashc_validate(&b.p, &pb) == FLASHC_STATUS_SUCCESS,
               "bias broadcast: validate failed (%s)", flashc_last_error());
    const int64_t want[4] = {0, 0, FX_SK, 1};
    TEST_CHECK(memcmp(pa.bias_stride, want, sizeof want) == 0 && memcmp(pb.bias_stride, want, sizeof want) == 0,
               "bias broadcast: normalised strides {%lld %lld %lld %lld} / {%lld %lld %lld %lld}, want {0 0 %d 1}",
               (long long)pa.bias_stride[0], (long long)pa.bias_stride[1], (long long)pa.bias_stride[2],
               (long long)pa.bias_stride[3], (long long)pb.bias_stride[0], (long long)pb.bias_stride[1],
               (long long)pb.bias_stride[2], (long long)pb.bias_stride[3], FX_SK);
    run_ok("bias broadcast by stride 0", &a);
    run_ok("bias broadcast by extent 1", &b);
    TEST_CHECK(memcmp(a.out.alloc, b.out.alloc, a.out.bytes) == 0, "bias broadcast: stride 0 and extent 1 differ");

    /* A key-padding style bias [b, 1, 1, s_k] is broadcastable too. */
    fx c;
    fx_build(&c, FX_BATCHED);
    const int64_t kp[4] = {FX_B, 1, 1, FX_SK};
    fx_add_bias(&c, FLASHC_DTYPE_BF16, kp);
    run_ok("bias [b, 1, 1, s_k] bf16", &c);
    fx_free(&a);
    fx_free(&b);
    fx_free(&c);
    tu_tensor_free(&bias);
}

/* All optional inputs at once, f32 out (CPU only), AUTO on host pointers. */
static void test_valid_everything(void)
{
    fx f;
    fx_build(&f, FX_BATCHED);
    fx_add_bias(&f, FLASHC_DTYPE_F16, k_bias_full);
    const int64_t ab[2] = {FX_B, FX_HQ};
    fx_add_alibi(&f, 2, ab);
    fx_add_descales(&f);
    /* scalar q_descale: [b, h_kv] with stride 0 everywhere */
    f.p.q_descale.stride[0] = f.p.q_descale.stride[1] = 0;
    f.p.causal = 1;
    f.p.window_left = 3;
    f.p.softcap = 5.0f;
    f.p.softmax_scale = 0.3f;
    tu_tensor_free(&f.out);
    const int64_t qs[4] = {FX_B, FX_SQ, FX_HQ, FX_D};
    fx_tensor(&f.out, FLASHC_DTYPE_F32, 4, qs, 0);
    f.p.out = f.out.view;
    f.p.backend = FLASHC_BACKEND_AUTO;
    run_ok("everything, f32 out, AUTO", &f);
    fx_free(&f);
}

/* ---- Normalisation (flashc_problem fields) ------------------------------------------------ */

#define CHECK_EQ(name, got, want)                                                                  \
    TEST_CHECK((long long)(got) == (long long)(want), "%s: %s = %lld, want %lld", name, #got, (long long)(got), \
               (long long)(want))

static void test_normalise_batched(void)
{
    fx f;
    fx_build(&f, FX_BATCHED);
    const int64_t ah[1] = {FX_HQ};
    fx_add_alibi(&f, 1, ah);
    fx_add_descales(&f);
    f.p.k_descale.shape[0] = 1; /* [1, h_kv]: batch broadcast by extent */
    f.p.causal = 1;
    flashc_problem p;
    flashc_status st = flashc_validate(&f.p, &p);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "normalise batched: %s", flashc_last_error());
    const char *n = "batched";
    CHECK_EQ(n, p.q_varlen, 0);
    CHECK_EQ(n, p.kv_layout, FLASHC_KV_BATCHED);
    CHECK_EQ(n, p.b, FX_B);
    CHECK_EQ(n, p.s_q, FX_SQ);
    CHECK_EQ(n, p.s_k, FX_SK);
    CHECK_EQ(n, p.h_q, FX_HQ);
    CHECK_EQ(n, p.h_kv, FX_HKV);
    CHECK_EQ(n, p.d, FX_D);
    CHECK_EQ(n, p.total_q, FX_B * FX_SQ);
    CHECK_EQ(n, p.total_k, FX_B * FX_SK);
    CHECK_EQ(n, p.q_stride[0], FX_SQ * FX_HQ * FX_D);
    CHECK_EQ(n, p.q_stride[1], FX_HQ * FX_D);
    CHECK_EQ(n, p.q_stride[2], FX_D);
    CHECK_EQ(n, p.k_stride[0], FX_SK * FX_HKV * FX_D);
    CHECK_EQ(n, p.k_stride[1], FX_HKV * FX_D);
    CHECK_EQ(n, p.v_stride[2], FX_D);
    CHECK_EQ(n, p.o_stride[1], FX_HQ * FX_D);
    CHECK_EQ(n, p.lse_stride[0], FX_HQ * FX_SQ);
    CHECK_EQ(n, p.lse_stride[1], FX_SQ);
    CHECK_EQ(n, p.alibi_stride[0], 0);
    CHECK_EQ(n, p.alibi_stride[1], 1);
    CHECK_EQ(n, p.k_descale_stride[0], 0);
    CHECK_EQ(n, p.k_descale_stride[1], 1);
    CHECK_EQ(n, p.q_descale_stride[0], FX_HKV);
    CHECK_EQ(n, p.window_right, 0);
    CHECK_EQ(n, p.window_left, -1);
    CHECK_EQ(n, p.causal, 1);
    CHECK_EQ(n, p.backend, FLASHC_BACKEND_CPU);
    CHECK_EQ(n, p.in_dtype, FLASHC_DTYPE_F16);
    CHECK_EQ(n, p.out_dtype, FLASHC_DTYPE_F16);
    TEST_CHECK(p.q == f.q.alloc && p.k == f.k.alloc && p.v == f.v.alloc && p.o == f.out.alloc &&
                   p.lse == f.lse.alloc && p.alibi == f.alibi.alloc && p.k_descale == f.descale[1].alloc,
               "batched: data pointers not carried over");
    TEST_CHECK(!p.cu_seqlens_q && !p.cu_seqlens_k && !p.page_table && !p.seqused_k && !p.bias,
               "batched: absent pointers must be NULL");
    TEST_CHECK(fabsf(p.softmax_scale - 1.0f / sqrtf((float)FX_D)) < 1e-7f, "batched: softmax_scale 0 -> 1/sqrt(d), got %g",
               (double)p.softmax_scale);
    fx_free(&f);
}

static void test_normalise_varlen(void)
{
    fx f;
    fx_build(&f, FX_VARLEN);
    const int64_t ab[2] = {FX_VL_B, FX_HQ};
    fx_add_alibi(&f, 2, ab);
    f.p.softmax_scale = 0.25f;
    f.p.window_left = 2;
    f.p.window_right = 1;
    flashc_problem p;
    flashc_status st = flashc_validate(&f.p, &p);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "normalise varlen: %s", flashc_last_error());
    const char *n = "varlen";
    CHECK_EQ(n, p.q_varlen, 1);
    CHECK_EQ(n, p.kv_layout, FLASHC_KV_VARLEN);
    CHECK_EQ(n, p.b, FX_VL_B);
    CHECK_EQ(n, p.s_q, FX_VL_MAX_Q);
    CHECK_EQ(n, p.s_k, FX_VL_MAX_K);
    CHECK_EQ(n, p.total_q, FX_VL_TOTAL_Q);
    CHECK_EQ(n, p.total_k, FX_VL_TOTAL_K);
    CHECK_EQ(n, p.q_stride[0], 0);
    CHECK_EQ(n, p.q_stride[1], FX_HQ * FX_D);
    CHECK_EQ(n, p.q_stride[2], FX_D);
    CHECK_EQ(n, p.k_stride[0], 0);
    CHECK_EQ(n, p.k_stride[1], FX_HKV * FX_D);
    CHECK_EQ(n, p.v_stride[0], 0);
    CHECK_EQ(n, p.v_stride[2], FX_D);
    CHECK_EQ(n, p.o_stride[0], 0);
    CHECK_EQ(n, p.o_stride[1], FX_HQ * FX_D);
    CHECK_EQ(n, p.lse_stride[0], 0);
    CHECK_EQ(n, p.lse_stride[1], FX_VL_TOTAL_Q);
    CHECK_EQ(n, p.alibi_stride[0], FX_HQ);
    CHECK_EQ(n, p.alibi_stride[1], 1);
    CHECK_EQ(n, p.window_left, 2);
    CHECK_EQ(n, p.window_right, 1);
    TEST_CHECK(p.softmax_scale == 0.25f, "varlen: softmax_scale kept, got %g", (double)p.softmax_scale);
    TEST_CHECK(p.cu_seqlens_q == f.cu_q && p.cu_seqlens_k == f.cu_k && !p.page_table, "varlen: index pointers");
    fx_free(&f);
}

/* Window sides reaching past every key become -1 (unbounded): INT32_MAX, the extent itself. */
static void test_normalise_wide_windows(void)
{
    const int32_t wide[3][2] = {{INT32_MAX, INT32_MAX}, {FX_SK, FX_SQ}, {FX_SK - 1, FX_SQ - 1}};
    for (int i = 0; i < 3; ++i) {
        fx f;
        fx_build(&f, FX_BATCHED);
        f.p.causal = 0;
        f.p.window_left = wide[i][0];
        f.p.window_right = wide[i][1];
        flashc_problem p;
        flashc_status st = flashc_validate(&f.p, &p);
        TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "wide windows %d: %s", i, flashc_last_error());
        const int bounded = i == 2; /* one key short of the extents: still a bound */
        CHECK_EQ("wide window_left", p.window_left, bounded ? FX_SK - 1 : -1);
        CHECK_EQ("wide window_right", p.window_right, bounded ? FX_SQ - 1 : -1);
        fx_free(&f);
    }
    fx f;
    fx_build(&f, FX_BATCHED);
    f.p.causal = 1; /* window_right 0 stays: causal */
    f.p.window_left = INT32_MAX;
    flashc_problem p;
    TEST_CHECK(flashc_validate(&f.p, &p) == FLASHC_STATUS_SUCCESS, "wide causal window: %s", flashc_last_error());
    CHECK_EQ("wide causal window_left", p.window_left, -1);
    CHECK_EQ("wide causal window_right", p.window_right, 0);
    fx_free(&f);
}

static void test_normalise_paged_and_vt(void)
{
    fx f;
    fx_build(&f, FX_PAGED);
    flashc_problem p;
    TEST_CHECK(flashc_validate(&f.p, &p) == FLASHC_STATUS_SUCCESS, "normalise paged: %s", flashc_last_error());
    const char *n = "paged";
    CHECK_EQ(n, p.kv_layout, FLASHC_KV_PAGED);
    CHECK_EQ(n, p.num_pages, FX_NUM_PAGES);
    CHECK_EQ(n, p.page_size, FX_PAGE_SIZE);
    CHECK_EQ(n, p.max_pages_per_seq, FX_MAX_PAGES);
    CHECK_EQ(n, p.page_table_stride, FX_MAX_PAGES);
    CHECK_EQ(n, p.total_k, FX_NUM_PAGES * FX_PAGE_SIZE);
    CHECK_EQ(n, p.s_k, FX_MAX_PAGES * FX_PAGE_SIZE);
    CHECK_EQ(n, p.k_stride[0], FX_PAGE_SIZE * FX_HKV * FX_D);
    CHECK_EQ(n, p.k_stride[1], FX_HKV * FX_D);
    CHECK_EQ(n, p.v_stride[0], FX_PAGE_SIZE * FX_HKV * FX_D);
    TEST_CHECK(p.page_table == f.page_table && p.seqused_k == f.seqused && !p.cu_seqlens_k, "paged: index pointers");
    fx_free(&f);

    fx_build(&f, FX_INT8_VT);
    TEST_CHECK(flashc_validate(&f.p, &p) == FLASHC_STATUS_SUCCESS, "normalise int8 vt: %s", flashc_last_error());
    n = "int8 v_transposed";
    CHECK_EQ(n, p.v_transposed, 1);
    CHECK_EQ(n, p.in_dtype, FLASHC_DTYPE_INT8);
    CHECK_EQ(n, p.v_stride[0], FX_HKV * FX_D * FX_VT_SEQ_STRIDE);
    CHECK_EQ(n, p.v_stride[1], FX_D * FX_VT_SEQ_STRIDE);
    CHECK_EQ(n, p.v_stride[2], FX_VT_SEQ_STRIDE);
    CHECK_EQ(n, p.q_descale_stride[0], FX_HKV);
    CHECK_EQ(n, p.v_descale_stride[1], 1);
    fx_free(&f);
}

int main(void)
{
    tu_rng_init(&g_rng, tu_seed());
    test_null_params();
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; ++i) run_fail_case(&k_cases[i]);
    test_fixtures_valid();
    test_valid_basic();
    test_valid_zero_length_varlen();
    test_valid_empty_batched();
    test_valid_bias_broadcast();
    test_valid_everything();
    test_normalise_batched();
    test_normalise_varlen();
    test_normalise_paged_and_vt();
    test_normalise_wide_windows();
    return tu_summary();
}
