/*
 * Argument validation: flashc_attention_params -> flashc_problem.
 *
 * flashc_validate() checks every rule of include/flashc.h and builds the normalised problem of
 * src/problem.h. It reads no tensor; it reads the small int32 index arrays (cu_seqlens, seqused,
 * page_table) only where the host may read them (flashc_pointer_is_host: neither device memory nor
 * memory CUDA cannot place): device-resident index arrays cannot be checked without a
 * synchronisation, so their contents are trusted.
 * flashc_validate_gpu() adds the alignment the GPU paths need.
 *
 * Every failure records a message naming the argument (flashc_error) and leaves *out untouched.
 * Order: params, backend, data pointers, flags, dtypes, q, k, v, out, heads/head dim, lse, bias,
 * ALiBi, descales, math scalars, host-visible index arrays. docs/validation.md lists the rules.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "problem.h"

/* Head dims the API accepts; others in (0, FLASHC_MAX_HEAD_DIM] are valid but NOT_SUPPORTED. */
static const int32_t k_supported_head_dims[] = {32, 64, 96, 128, 192, 256};
#define FLASHC_NUM_HEAD_DIMS ((int)(sizeof k_supported_head_dims / sizeof k_supported_head_dims[0]))
#define FLASHC_MAX_HEAD_DIM 512
/* No buffer comes near 2^56 bytes (64 PiB). Bounding every stride and every tensor's span by it
   keeps all offset arithmetic (element or byte offsets, sums of a few of them) far from int64
   overflow, in the CPU reference and in the GPU paths' address math. */
#define FLASHC_MAX_SPAN_BYTES ((int64_t)1 << 56)
/* GPU paths move 16-byte vectors (cp.async, TMA, ldmatrix): bases and row strides align to it. */
#define FLASHC_GPU_ALIGN_BYTES 16
#define FLASHC_INDEX_BYTES ((int64_t)sizeof(int32_t))

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        flashc_status try_status_ = (expr);                                                        \
        if (try_status_ != FLASHC_STATUS_SUCCESS) return try_status_;                              \
    } while (0)

#define INVALID FLASHC_STATUS_INVALID_ARGUMENT

/* ---- Small helpers ----------------------------------------------------------------------- */

static const char *dtype_name(flashc_dtype t)
{
    switch (t) {
    case FLASHC_DTYPE_F32: return "f32";
    case FLASHC_DTYPE_F16: return "f16";
    case FLASHC_DTYPE_BF16: return "bf16";
    case FLASHC_DTYPE_FP8_E4M3: return "fp8_e4m3";
    case FLASHC_DTYPE_INT8: return "int8";
    }
    return "unknown";
}

static int64_t dtype_bytes(flashc_dtype t)
{
    switch (t) {
    case FLASHC_DTYPE_F32: return 4;
    case FLASHC_DTYPE_F16:
    case FLASHC_DTYPE_BF16: return 2;
    case FLASHC_DTYPE_FP8_E4M3:
    case FLASHC_DTYPE_INT8: return 1;
    }
    return 0;
}

static int is_8bit(flashc_dtype t) { return t == FLASHC_DTYPE_FP8_E4M3 || t == FLASHC_DTYPE_INT8; }

/* Extents, row counts and sequence lengths are int32 everywhere, with headroom: a length rounded
   up to whole tiles (len + tile - 1, tiles of at most 2^16 rows) still fits. */
#define FLASHC_MAX_EXTENT (INT32_MAX - 65535)
#define FLASHC_MAX_EXTENT_TEXT "2^31 - 2^16"
static int fits_extent(int64_t v) { return v >= 0 && v <= FLASHC_MAX_EXTENT; }
/* Both factors are checked first, so the int64 product cannot overflow. */
static int product_fits_extent(int64_t a, int64_t b) { return fits_extent(a) && fits_extent(b) && fits_extent(a * b); }

static int is_aligned(const void *ptr, int64_t bytes) { return bytes > 0 && (uintptr_t)ptr % (uintptr_t)bytes == 0; }

/* Natural alignment of an element pointer: a misaligned one cannot be read as its type anywhere. */
static flashc_status check_elem_aligned(const void *ptr, int64_t bytes, const char *name)
{
    if (ptr && !is_aligned(ptr, bytes))
        return flashc_error(FLASHC_STATUS_MISALIGNED, "%s (%p) is not aligned to its %lld-byte element",
                            name, ptr, (long long)bytes);
    return FLASHC_STATUS_SUCCESS;
}

/* A tensor's expected layout: extents (want < 0: any) and a name per dimension for messages. */
typedef struct layout {
    int32_t ndim;
    int64_t want[FLASHC_MAX_DIMS];
    const char *dim[FLASHC_MAX_DIMS];
    const char *desc; /* e.g. "[b, s_q, h_q, d] (batched q: cu_seqlens_q is NULL)" */
} layout;

static flashc_status check_ndim(const flashc_tensor *t, const char *name, const layout *l)
{
    if (t->ndim != l->ndim)
        return flashc_error(INVALID, "%s.ndim = %d must be %d: %s is %s", name, (int)t->ndim, (int)l->ndim,
                            name, l->desc);
    for (int i = 0; i < l->ndim; ++i)
        if (t->shape[i] < 0)
            return flashc_error(INVALID, "%s.shape[%d] (%s) = %lld is negative", name, i, l->dim[i],
                                (long long)t->shape[i]);
    return FLASHC_STATUS_SUCCESS;
}

/* ndim and every fixed extent of a dense tensor (q, k, v, out, lse). */
static flashc_status check_shape(const flashc_tensor *t, const char *name, const layout *l)
{
    TRY(check_ndim(t, name, l));
    for (int i = 0; i < l->ndim; ++i)
        if (l->want[i] >= 0 && t->shape[i] != l->want[i])
            return flashc_error(INVALID, "%s.shape[%d] = %lld must equal %s = %lld (%s is %s)", name, i,
                                (long long)t->shape[i], l->dim[i], (long long)l->want[i], name, l->desc);
    return FLASHC_STATUS_SUCCESS;
}

/* Strides (already >= 0) and the bytes from a view's first element to its last within
   FLASHC_MAX_SPAN_BYTES: a view that large describes no real buffer, and would overflow offsets. */
static flashc_status check_span(const flashc_tensor *t, const char *name)
{
    const int64_t elem = dtype_bytes(t->dtype) > 0 ? dtype_bytes(t->dtype) : 1;
    int64_t last = 0; /* byte offset of the last element */
    for (int i = 0; i < t->ndim; ++i)
        if (t->stride[i] > FLASHC_MAX_SPAN_BYTES / elem)
            return flashc_error(INVALID, "%s.stride[%d] = %lld elements is beyond any buffer (more than 2^56 bytes)",
                                name, i, (long long)t->stride[i]);
    for (int i = 0; i < t->ndim; ++i) {
        if (t->shape[i] == 0) return FLASHC_STATUS_SUCCESS; /* no element: nothing is reached */
        const int64_t steps = t->shape[i] - 1, step = t->stride[i] * elem;
        if (step > 0 && steps > (FLASHC_MAX_SPAN_BYTES - last) / step)
            return flashc_error(INVALID, "%s spans more than 2^56 bytes (shape and strides describe no real buffer)",
                                name);
        last += steps * step;
    }
    return FLASHC_STATUS_SUCCESS;
}

/* Dense tensors never broadcast: strides >= 0, innermost 1, 0 only on extents <= 1. */
static flashc_status check_dense_strides(const flashc_tensor *t, const char *name)
{
    for (int i = 0; i < t->ndim; ++i) {
        int64_t s = t->stride[i], n = t->shape[i];
        if (s < 0)
            return flashc_error(INVALID, "%s.stride[%d] = %lld is negative", name, i, (long long)s);
        if (i == t->ndim - 1 && n > 1 && s != 1)
            return flashc_error(INVALID, "%s.stride[%d] = %lld must be 1: the innermost dimension is contiguous",
                                name, i, (long long)s);
        if (s == 0 && n > 1)
            return flashc_error(INVALID, "%s.stride[%d] = 0 with %s.shape[%d] = %lld: only bias, alibi_slopes "
                                "and descale tensors may broadcast", name, i, name, i, (long long)n);
    }
    return check_span(t, name);
}

/*
 * Broadcastable parameter tensors (bias, alibi_slopes, descales): each extent is the full one or
 * 1, strides >= 0, the innermost 0 or 1. Writes normalised strides (0 where broadcast).
 */
static flashc_status check_broadcast(const flashc_tensor *t, const char *name, const layout *l, int64_t *stride)
{
    TRY(check_ndim(t, name, l));
    for (int i = 0; i < l->ndim; ++i) {
        int64_t n = t->shape[i], s = t->stride[i];
        if (n != l->want[i] && n != 1)
            return flashc_error(INVALID, "%s.shape[%d] = %lld is not broadcastable to %s = %lld (must be %lld or 1; "
                                "%s is %s)", name, i, (long long)n, l->dim[i], (long long)l->want[i],
                                (long long)l->want[i], name, l->desc);
        if (s < 0)
            return flashc_error(INVALID, "%s.stride[%d] = %lld is negative", name, i, (long long)s);
        if (i == l->ndim - 1 && n > 1 && s != 0 && s != 1)
            return flashc_error(INVALID, "%s.stride[%d] = %lld must be 1 (contiguous) or 0 (broadcast)", name, i,
                                (long long)s);
        stride[i] = n == 1 ? 0 : s;
    }
    return check_span(t, name);
}

/* ---- Checks, in call order --------------------------------------------------------------- */

static flashc_status check_backend(const flashc_attention_params *in)
{
    int b = (int)in->backend;
    if (b < (int)FLASHC_BACKEND_AUTO || b > (int)FLASHC_BACKEND_SM90)
        return flashc_error(INVALID, "backend = %d is not a flashc_backend (AUTO=0, CPU=1, SM80=2, SM90=3)", b);
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_required_data(const flashc_attention_params *in)
{
    if (!in->q.data) return flashc_error(INVALID, "q.data is NULL");
    if (!in->k.data) return flashc_error(INVALID, "k.data is NULL");
    if (!in->v.data) return flashc_error(INVALID, "v.data is NULL");
    if (!in->out.data) return flashc_error(INVALID, "out.data is NULL");
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_flags(const flashc_attention_params *in)
{
    if (in->causal != 0 && in->causal != 1)
        return flashc_error(INVALID, "causal = %d must be 0 or 1", (int)in->causal);
    if (in->v_transposed != 0 && in->v_transposed != 1)
        return flashc_error(INVALID, "v_transposed = %d must be 0 or 1", (int)in->v_transposed);
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_dtypes(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_dtype qt = in->q.dtype;
    if (qt != FLASHC_DTYPE_F16 && qt != FLASHC_DTYPE_BF16 && qt != FLASHC_DTYPE_FP8_E4M3 && qt != FLASHC_DTYPE_INT8)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH,
                            "q.dtype = %s (%d) is not an input dtype (f16, bf16, fp8_e4m3, int8)", dtype_name(qt),
                            (int)qt);
    if (in->k.dtype != qt)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "k.dtype = %s must equal q.dtype = %s",
                            dtype_name(in->k.dtype), dtype_name(qt));
    if (in->v.dtype != qt)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "v.dtype = %s must equal q.dtype = %s",
                            dtype_name(in->v.dtype), dtype_name(qt));

    const flashc_dtype ot = in->out.dtype;
    const int gpu_forced = in->backend == FLASHC_BACKEND_SM80 || in->backend == FLASHC_BACKEND_SM90;
    if (ot == FLASHC_DTYPE_F32 && gpu_forced)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH,
                            "out.dtype = f32 needs the CPU backend; GPU backends write f16 or bf16");
    if (ot != FLASHC_DTYPE_F16 && ot != FLASHC_DTYPE_BF16 && ot != FLASHC_DTYPE_F32)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "out.dtype = %s (%d) must be f16 or bf16 (f32 on the CPU backend)",
                            dtype_name(ot), (int)ot);

    if (in->lse.data && in->lse.dtype != FLASHC_DTYPE_F32)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "lse.dtype = %s must be f32", dtype_name(in->lse.dtype));
    const flashc_dtype bt = in->bias.dtype;
    if (in->bias.data && bt != FLASHC_DTYPE_F32 && bt != FLASHC_DTYPE_F16 && bt != FLASHC_DTYPE_BF16)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "bias.dtype = %s must be f32, f16 or bf16", dtype_name(bt));
    if (in->alibi_slopes.data && in->alibi_slopes.dtype != FLASHC_DTYPE_F32)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "alibi_slopes.dtype = %s must be f32",
                            dtype_name(in->alibi_slopes.dtype));
    const flashc_tensor *ds[3] = {&in->q_descale, &in->k_descale, &in->v_descale};
    static const char *const ds_name[3] = {"q_descale", "k_descale", "v_descale"};
    for (int i = 0; i < 3; ++i)
        if (ds[i]->data && ds[i]->dtype != FLASHC_DTYPE_F32)
            return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH, "%s.dtype = %s must be f32", ds_name[i],
                                dtype_name(ds[i]->dtype));

    p->in_dtype = qt;
    p->out_dtype = ot;
    p->bias_dtype = in->bias.data ? bt : FLASHC_DTYPE_F32;
    return FLASHC_STATUS_SUCCESS;
}

/* Natural alignment of every pointer (tensors by element size, index arrays by int32). */
static flashc_status check_pointer_alignment(const flashc_attention_params *in)
{
    const int64_t in_bytes = dtype_bytes(in->q.dtype);
    TRY(check_elem_aligned(in->q.data, in_bytes, "q.data"));
    TRY(check_elem_aligned(in->k.data, in_bytes, "k.data"));
    TRY(check_elem_aligned(in->v.data, in_bytes, "v.data"));
    TRY(check_elem_aligned(in->out.data, dtype_bytes(in->out.dtype), "out.data"));
    TRY(check_elem_aligned(in->lse.data, dtype_bytes(FLASHC_DTYPE_F32), "lse.data"));
    TRY(check_elem_aligned(in->bias.data, dtype_bytes(in->bias.dtype), "bias.data"));
    TRY(check_elem_aligned(in->alibi_slopes.data, dtype_bytes(FLASHC_DTYPE_F32), "alibi_slopes.data"));
    TRY(check_elem_aligned(in->q_descale.data, dtype_bytes(FLASHC_DTYPE_F32), "q_descale.data"));
    TRY(check_elem_aligned(in->k_descale.data, dtype_bytes(FLASHC_DTYPE_F32), "k_descale.data"));
    TRY(check_elem_aligned(in->v_descale.data, dtype_bytes(FLASHC_DTYPE_F32), "v_descale.data"));
    TRY(check_elem_aligned(in->cu_seqlens_q, FLASHC_INDEX_BYTES, "cu_seqlens_q"));
    TRY(check_elem_aligned(in->cu_seqlens_k, FLASHC_INDEX_BYTES, "cu_seqlens_k"));
    TRY(check_elem_aligned(in->seqused_k, FLASHC_INDEX_BYTES, "seqused_k"));
    TRY(check_elem_aligned(in->page_table, FLASHC_INDEX_BYTES, "page_table"));
    return FLASHC_STATUS_SUCCESS;
}

/* q fixes b, s_q, h_q, d and total_q. */
static flashc_status check_q(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_tensor *q = &in->q;
    if (!in->cu_seqlens_q) {
        const layout l = {4, {-1, -1, -1, -1}, {"b", "s_q", "h_q", "d"},
                          "[b, s_q, h_q, d] (batched q: cu_seqlens_q is NULL)"};
        TRY(check_ndim(q, "q", &l));
        if (q->shape[0] < 1) return flashc_error(INVALID, "q.shape[0] (b) = %lld must be >= 1", (long long)q->shape[0]);
        if (in->batch != 0 && in->batch != q->shape[0])
            return flashc_error(INVALID, "batch = %d must be 0 or q.shape[0] (b = %lld) for batched q",
                                (int)in->batch, (long long)q->shape[0]);
        if (!product_fits_extent(q->shape[0], q->shape[1]) || !fits_extent(q->shape[2]) || !fits_extent(q->shape[3]))
            return flashc_error(INVALID, "q.shape [%lld, %lld, %lld, %lld] is too large (b * s_q and each extent at most " FLASHC_MAX_EXTENT_TEXT ")",
                                (long long)q->shape[0], (long long)q->shape[1], (long long)q->shape[2],
                                (long long)q->shape[3]);
        p->q_varlen = 0;
        p->b = (int32_t)q->shape[0];
        p->s_q = (int32_t)q->shape[1];
        p->h_q = (int32_t)q->shape[2];
        p->d = (int32_t)q->shape[3];
        p->total_q = p->b * p->s_q;
        p->q_stride[0] = q->stride[0];
        p->q_stride[1] = q->stride[1];
        p->q_stride[2] = q->stride[2];
    } else {
        const layout l = {3, {-1, -1, -1}, {"total_q", "h_q", "d"},
                          "[total_q, h_q, d] (varlen q: cu_seqlens_q is set)"};
        TRY(check_ndim(q, "q", &l));
        if (in->batch < 1)
            return flashc_error(INVALID, "batch = %d must be >= 1 for varlen q (cu_seqlens_q is set)", (int)in->batch);
        if (!fits_extent(in->max_seqlen_q))
            return flashc_error(INVALID, "max_seqlen_q = %d must be in 0.." FLASHC_MAX_EXTENT_TEXT,
                                (int)in->max_seqlen_q);
        if (!fits_extent(q->shape[0]) || !fits_extent(q->shape[1]) || !fits_extent(q->shape[2]))
            return flashc_error(INVALID, "q.shape [%lld, %lld, %lld] is too large (each extent at most " FLASHC_MAX_EXTENT_TEXT ")",
                                (long long)q->shape[0], (long long)q->shape[1], (long long)q->shape[2]);
        p->q_varlen = 1;
        p->b = in->batch;
        p->s_q = in->max_seqlen_q;
        p->total_q = (int32_t)q->shape[0];
        p->h_q = (int32_t)q->shape[1];
        p->d = (int32_t)q->shape[2];
        p->q_stride[0] = 0;
        p->q_stride[1] = q->stride[0];
        p->q_stride[2] = q->stride[1];
        p->cu_seqlens_q = in->cu_seqlens_q;
    }
    TRY(check_dense_strides(q, "q"));
    p->q = q->data;
    return FLASHC_STATUS_SUCCESS;
}

/* k fixes the KV layout, s_k, total_k, h_kv and the paging geometry. */
static flashc_status check_k(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_tensor *k = &in->k;
    if (in->page_table) {
        if (in->cu_seqlens_k)
            return flashc_error(INVALID, "page_table and cu_seqlens_k are both set: paged k/v takes its lengths "
                                "from seqused_k, not cu_seqlens_k");
        const layout l = {4, {-1, -1, -1, p->d}, {"num_pages", "page_size", "h_kv", "d"},
                          "[num_pages, page_size, h_kv, d] (paged k: page_table is set)"};
        TRY(check_shape(k, "k", &l));
        if (k->shape[0] < 1)
            return flashc_error(INVALID, "k.shape[0] (num_pages) = %lld must be >= 1 for paged k", (long long)k->shape[0]);
        if (k->shape[1] < 1)
            return flashc_error(INVALID, "k.shape[1] (page_size) = %lld must be >= 1 for paged k", (long long)k->shape[1]);
        if (!product_fits_extent(k->shape[0], k->shape[1]) || !fits_extent(k->shape[2]))
            return flashc_error(INVALID, "k.shape [%lld, %lld, %lld, %lld] is too large (num_pages * page_size and "
                                "each extent at most " FLASHC_MAX_EXTENT_TEXT ")", (long long)k->shape[0], (long long)k->shape[1], (long long)k->shape[2],
                                (long long)k->shape[3]);
        if (!in->seqused_k)
            return flashc_error(INVALID, "seqused_k is NULL: paged k/v (page_table is set) needs it");
        if (in->max_pages_per_seq < 1)
            return flashc_error(INVALID, "max_pages_per_seq = %d must be >= 1 for paged k/v", (int)in->max_pages_per_seq);
        if (in->page_table_stride < in->max_pages_per_seq)
            return flashc_error(INVALID, "page_table_stride = %lld must be >= max_pages_per_seq = %d",
                                (long long)in->page_table_stride, (int)in->max_pages_per_seq);
        /* the table's rows, (b - 1) * page_table_stride + max_pages_per_seq entries, as check_span */
        if (in->page_table_stride > (FLASHC_MAX_SPAN_BYTES / FLASHC_INDEX_BYTES - in->max_pages_per_seq) /
                                        (p->b > 1 ? p->b - 1 : 1))
            return flashc_error(INVALID, "page_table_stride = %lld: the page table of %d sequences spans more than "
                                "2^56 bytes", (long long)in->page_table_stride, (int)p->b);
        if (!fits_extent(in->max_seqlen_k))
            return flashc_error(INVALID, "max_seqlen_k = %d must be in 0.." FLASHC_MAX_EXTENT_TEXT,
                                (int)in->max_seqlen_k);
        p->kv_layout = FLASHC_KV_PAGED;
        p->num_pages = (int32_t)k->shape[0];
        p->page_size = (int32_t)k->shape[1];
        p->h_kv = (int32_t)k->shape[2];
        p->max_pages_per_seq = in->max_pages_per_seq;
        p->page_table_stride = in->page_table_stride;
        p->page_table = in->page_table;
        p->s_k = in->max_seqlen_k;
        p->total_k = p->num_pages * p->page_size;
        p->k_stride[0] = k->stride[0];
        p->k_stride[1] = k->stride[1];
        p->k_stride[2] = k->stride[2];
    } else if (in->cu_seqlens_k) {
        const layout l = {3, {-1, -1, p->d}, {"total_k", "h_kv", "d"},
                          "[total_k, h_kv, d] (varlen k: cu_seqlens_k is set)"};
        TRY(check_shape(k, "k", &l));
        if (!fits_extent(in->max_seqlen_k))
            return flashc_error(INVALID, "max_seqlen_k = %d must be in 0.." FLASHC_MAX_EXTENT_TEXT,
                                (int)in->max_seqlen_k);
        if (!fits_extent(k->shape[0]) || !fits_extent(k->shape[1]))
            return flashc_error(INVALID, "k.shape [%lld, %lld, %lld] is too large (each extent at most " FLASHC_MAX_EXTENT_TEXT ")",
                                (long long)k->shape[0], (long long)k->shape[1], (long long)k->shape[2]);
        p->kv_layout = FLASHC_KV_VARLEN;
        p->cu_seqlens_k = in->cu_seqlens_k;
        p->s_k = in->max_seqlen_k;
        p->total_k = (int32_t)k->shape[0];
        p->h_kv = (int32_t)k->shape[1];
        p->k_stride[0] = 0;
        p->k_stride[1] = k->stride[0];
        p->k_stride[2] = k->stride[1];
    } else {
        const layout l = {4, {p->b, -1, -1, p->d}, {"b", "s_k", "h_kv", "d"},
                          "[b, s_k, h_kv, d] (batched k: page_table and cu_seqlens_k are NULL)"};
        TRY(check_shape(k, "k", &l));
        if (!product_fits_extent(k->shape[0], k->shape[1]) || !fits_extent(k->shape[2]))
            return flashc_error(INVALID, "k.shape [%lld, %lld, %lld, %lld] is too large (b * s_k and each extent at most " FLASHC_MAX_EXTENT_TEXT ")",
                                (long long)k->shape[0], (long long)k->shape[1], (long long)k->shape[2],
                                (long long)k->shape[3]);
        p->kv_layout = FLASHC_KV_BATCHED;
        p->s_k = (int32_t)k->shape[1];
        p->total_k = p->b * p->s_k;
        p->h_kv = (int32_t)k->shape[2];
        p->k_stride[0] = k->stride[0];
        p->k_stride[1] = k->stride[1];
        p->k_stride[2] = k->stride[2];
    }
    TRY(check_dense_strides(k, "k"));
    p->k = k->data;
    p->seqused_k = in->seqused_k;
    return FLASHC_STATUS_SUCCESS;
}

/* v has k's layout, or the sequence-innermost one when v_transposed. */
static flashc_status check_v(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_tensor *v = &in->v, *k = &in->k;
    if (in->v_transposed && !is_8bit(p->in_dtype))
        return flashc_error(INVALID, "v_transposed = 1 needs an 8-bit dtype (fp8_e4m3 or int8), q.dtype is %s",
                            dtype_name(p->in_dtype));
    if (!in->v_transposed) {
        layout l = {k->ndim, {-1, -1, -1, -1}, {"k.shape[0]", "k.shape[1]", "k.shape[2]", "k.shape[3]"},
                    "shaped like k"};
        for (int i = 0; i < k->ndim; ++i) l.want[i] = k->shape[i];
        TRY(check_shape(v, "v", &l));
        TRY(check_dense_strides(v, "v"));
        p->v_stride[0] = p->kv_layout == FLASHC_KV_VARLEN ? 0 : v->stride[0];
        p->v_stride[1] = p->kv_layout == FLASHC_KV_VARLEN ? v->stride[0] : v->stride[1];
        p->v_stride[2] = p->kv_layout == FLASHC_KV_VARLEN ? v->stride[1] : v->stride[2];
    } else if (p->kv_layout == FLASHC_KV_VARLEN) {
        const layout l = {3, {p->h_kv, p->d, p->total_k}, {"h_kv", "d", "total_k"},
                          "[h_kv, d, total_k] (varlen k, v_transposed)"};
        TRY(check_shape(v, "v", &l));
        TRY(check_dense_strides(v, "v"));
        p->v_stride[0] = 0;
        p->v_stride[1] = v->stride[0];
        p->v_stride[2] = v->stride[1];
    } else {
        const int paged = p->kv_layout == FLASHC_KV_PAGED;
        const layout lb = {4, {p->b, p->h_kv, p->d, p->s_k}, {"b", "h_kv", "d", "s_k"},
                           "[b, h_kv, d, s_k] (batched k, v_transposed)"};
        const layout lp = {4, {p->num_pages, p->h_kv, p->d, p->page_size}, {"num_pages", "h_kv", "d", "page_size"},
                           "[num_pages, h_kv, d, page_size] (paged k, v_transposed)"};
        TRY(check_shape(v, "v", paged ? &lp : &lb));
        TRY(check_dense_strides(v, "v"));
        p->v_stride[0] = v->stride[0];
        p->v_stride[1] = v->stride[1];
        p->v_stride[2] = v->stride[2];
    }
    p->v = v->data;
    p->v_transposed = in->v_transposed;
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_out(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_tensor *o = &in->out, *q = &in->q;
    layout l = {q->ndim, {-1, -1, -1, -1}, {"q.shape[0]", "q.shape[1]", "q.shape[2]", "q.shape[3]"}, "shaped like q"};
    for (int i = 0; i < q->ndim; ++i) l.want[i] = q->shape[i];
    TRY(check_shape(o, "out", &l));
    TRY(check_dense_strides(o, "out"));
    p->o = o->data;
    p->o_stride[0] = p->q_varlen ? 0 : o->stride[0];
    p->o_stride[1] = p->q_varlen ? o->stride[0] : o->stride[1];
    p->o_stride[2] = p->q_varlen ? o->stride[1] : o->stride[2];
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_heads(const flashc_problem *p)
{
    const int qd = p->q_varlen ? 2 : 3, qh = qd - 1, kh = p->kv_layout == FLASHC_KV_VARLEN ? 1 : 2;
    if (p->h_q < 1) return flashc_error(INVALID, "q.shape[%d] (h_q) = %d must be >= 1", qh, (int)p->h_q);
    if (p->h_kv < 1) return flashc_error(INVALID, "k.shape[%d] (h_kv) = %d must be >= 1", kh, (int)p->h_kv);
    if (p->h_q % p->h_kv != 0)
        return flashc_error(INVALID, "k.shape[%d] (h_kv = %d) must divide q.shape[%d] (h_q = %d)", kh, (int)p->h_kv,
                            qh, (int)p->h_q);
    if (p->d <= 0 || p->d > FLASHC_MAX_HEAD_DIM)
        return flashc_error(INVALID, "q.shape[%d] (head dim d) = %d must be in 1..%d", qd, (int)p->d,
                            FLASHC_MAX_HEAD_DIM);
    for (int i = 0; i < FLASHC_NUM_HEAD_DIMS; ++i)
        if (p->d == k_supported_head_dims[i]) return FLASHC_STATUS_SUCCESS;
    return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                        "q.shape[%d] (head dim d) = %d is not supported: d must be 32, 64, 96, 128, 192 or 256", qd,
                        (int)p->d);
}

static flashc_status check_lse(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_tensor *t = &in->lse;
    if (!t->data) return FLASHC_STATUS_SUCCESS;
    if (!p->q_varlen) {
        const layout l = {3, {p->b, p->h_q, p->s_q}, {"b", "h_q", "s_q"}, "[b, h_q, s_q] (batched q)"};
        TRY(check_shape(t, "lse", &l));
        p->lse_stride[0] = t->stride[0];
        p->lse_stride[1] = t->stride[1];
    } else {
        const layout l = {2, {p->h_q, p->total_q}, {"h_q", "total_q"}, "[h_q, total_q] (varlen q)"};
        TRY(check_shape(t, "lse", &l));
        p->lse_stride[0] = 0;
        p->lse_stride[1] = t->stride[0];
    }
    TRY(check_dense_strides(t, "lse"));
    p->lse = (float *)t->data;
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_bias(const flashc_attention_params *in, flashc_problem *p)
{
    if (!in->bias.data) return FLASHC_STATUS_SUCCESS;
    const layout l = {4, {p->b, p->h_q, p->s_q, p->s_k}, {"b", "h_q", "s_q", "s_k"},
                      "[b|1, h_q|1, s_q|1, s_k|1] (s_q/s_k = max_seqlen_q/k when varlen)"};
    TRY(check_broadcast(&in->bias, "bias", &l, p->bias_stride));
    p->bias = in->bias.data;
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_alibi(const flashc_attention_params *in, flashc_problem *p)
{
    const flashc_tensor *t = &in->alibi_slopes;
    if (!t->data) return FLASHC_STATUS_SUCCESS;
    if (t->ndim == 1) {
        const layout l = {1, {p->h_q}, {"h_q"}, "[h_q] or [b, h_q]"};
        TRY(check_broadcast(t, "alibi_slopes", &l, &p->alibi_stride[1]));
        p->alibi_stride[0] = 0;
    } else {
        const layout l = {2, {p->b, p->h_q}, {"b", "h_q"}, "[h_q] or [b, h_q]"};
        TRY(check_broadcast(t, "alibi_slopes", &l, p->alibi_stride));
    }
    p->alibi = (const float *)t->data;
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_descale(const flashc_tensor *t, const char *name, const flashc_problem *p,
                                   const float **ptr, int64_t *stride)
{
    if (!t->data) return FLASHC_STATUS_SUCCESS;
    const layout l = {2, {p->b, p->h_kv}, {"b", "h_kv"}, "[b|1, h_kv|1] (stride 0 broadcasts)"};
    TRY(check_broadcast(t, name, &l, stride));
    *ptr = (const float *)t->data;
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_math(const flashc_attention_params *in, flashc_problem *p)
{
    if (in->window_left < -1)
        return flashc_error(INVALID, "window_left = %d must be >= -1 (-1 = unbounded)", (int)in->window_left);
    if (in->window_right < -1)
        return flashc_error(INVALID, "window_right = %d must be >= -1 (-1 = unbounded)", (int)in->window_right);
    if (in->causal && in->window_right > 0)
        return flashc_error(INVALID, "inconsistent window/causal: causal = 1 means window_right = 0, got "
                            "window_right = %d", (int)in->window_right);
    if (isnan(in->softcap) || isinf(in->softcap) || in->softcap < 0.0f)
        return flashc_error(INVALID, "softcap = %g must be finite and >= 0 (0 = none)", (double)in->softcap);
    if (isnan(in->softmax_scale) || isinf(in->softmax_scale) || in->softmax_scale < 0.0f)
        return flashc_error(INVALID, "softmax_scale = %g must be finite and >= 0 (0 = 1/sqrt(d))",
                            (double)in->softmax_scale);
    p->softmax_scale = in->softmax_scale != 0.0f ? in->softmax_scale : (float)(1.0 / sqrt((double)p->d));
    p->softcap = in->softcap;
    p->causal = in->causal;
    p->window_left = in->window_left;
    p->window_right = in->causal ? 0 : in->window_right;
    /* A window side that reaches past every key of every row is no bound (-1): the same attention,
       and the GPU paths' int32 key arithmetic (row + s_k - s_q +- window) stays far from overflow
       (window_right = INT32_MAX used to wrap it). Row i of a sequence sees keys from
       i + s_k - s_q - window_left, below 0 for window_left >= s_k, and up to i + s_k - s_q +
       window_right, past its last key for window_right >= s_q (s_q / s_k: extents, or
       max_seqlen_q / _k, which bound every sequence). */
    if (p->window_left >= p->s_k) p->window_left = -1;
    if (p->window_right > 0 && p->window_right >= p->s_q) p->window_right = -1;
    return FLASHC_STATUS_SUCCESS;
}

/* cu_seqlens: starts at 0, non-decreasing, ends within the rows, each length <= max_seqlen. */
static flashc_status check_cu_seqlens(const int32_t *cu, const char *name, int32_t b, int32_t total,
                                      const char *total_name, int32_t max_len, const char *max_name)
{
    if (!cu || !flashc_pointer_is_host(cu)) return FLASHC_STATUS_SUCCESS;
    if (cu[0] != 0) return flashc_error(INVALID, "%s[0] = %d must be 0", name, (int)cu[0]);
    for (int32_t i = 0; i < b; ++i) {
        if (cu[i + 1] < cu[i])
            return flashc_error(INVALID, "%s[%d] = %d is less than %s[%d] = %d: it must be non-decreasing", name,
                                (int)i + 1, (int)cu[i + 1], name, (int)i, (int)cu[i]);
        if ((int64_t)cu[i + 1] - cu[i] > max_len)
            return flashc_error(INVALID, "%s: sequence %d has length %d > %s = %d", name, (int)i,
                                (int)(cu[i + 1] - cu[i]), max_name, (int)max_len);
    }
    if (cu[b] > total)
        return flashc_error(INVALID, "%s[%d] = %d exceeds %s = %d", name, (int)b, (int)cu[b], total_name, (int)total);
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_seqused(const flashc_problem *p)
{
    const int32_t *used = p->seqused_k;
    if (!used || !flashc_pointer_is_host(used)) return FLASHC_STATUS_SUCCESS;
    const int cu_host = p->cu_seqlens_k && flashc_pointer_is_host(p->cu_seqlens_k);
    const int64_t paged_cap = (int64_t)p->max_pages_per_seq * p->page_size;
    for (int32_t i = 0; i < p->b; ++i) {
        if (used[i] < 0) return flashc_error(INVALID, "seqused_k[%d] = %d is negative", (int)i, (int)used[i]);
        if (p->kv_layout == FLASHC_KV_BATCHED && used[i] > p->s_k)
            return flashc_error(INVALID, "seqused_k[%d] = %d exceeds k.shape[1] (s_k = %d)", (int)i, (int)used[i],
                                (int)p->s_k);
        if (p->kv_layout == FLASHC_KV_VARLEN && cu_host && used[i] > p->cu_seqlens_k[i + 1] - p->cu_seqlens_k[i])
            return flashc_error(INVALID, "seqused_k[%d] = %d exceeds the length %d of sequence %d in cu_seqlens_k",
                                (int)i, (int)used[i], (int)(p->cu_seqlens_k[i + 1] - p->cu_seqlens_k[i]), (int)i);
        if (p->kv_layout != FLASHC_KV_BATCHED && used[i] > p->s_k)
            return flashc_error(INVALID, "seqused_k[%d] = %d exceeds max_seqlen_k = %d", (int)i, (int)used[i],
                                (int)p->s_k);
        if (p->kv_layout == FLASHC_KV_PAGED && used[i] > paged_cap)
            return flashc_error(INVALID, "seqused_k[%d] = %d exceeds the page capacity max_pages_per_seq * page_size "
                                "= %lld", (int)i, (int)used[i], (long long)paged_cap);
    }
    return FLASHC_STATUS_SUCCESS;
}

/* Entries of the pages a sequence uses lie in [0, num_pages); unused entries are not read. */
static flashc_status check_page_table(const flashc_problem *p)
{
    if (p->kv_layout != FLASHC_KV_PAGED || !flashc_pointer_is_host(p->page_table) ||
        !flashc_pointer_is_host(p->seqused_k))
        return FLASHC_STATUS_SUCCESS;
    for (int32_t i = 0; i < p->b; ++i) {
        const int64_t pages = ((int64_t)p->seqused_k[i] + p->page_size - 1) / p->page_size;
        const int32_t *row = p->page_table + (int64_t)i * p->page_table_stride;
        for (int64_t j = 0; j < pages; ++j)
            if (row[j] < 0 || row[j] >= p->num_pages)
                return flashc_error(INVALID, "page_table[%d][%lld] = %d is outside [0, num_pages = %d)", (int)i,
                                    (long long)j, (int)row[j], (int)p->num_pages);
    }
    return FLASHC_STATUS_SUCCESS;
}

/* ---- Entry points ------------------------------------------------------------------------ */

flashc_status flashc_validate(const flashc_attention_params *in, flashc_problem *out)
{
    if (!in) return flashc_error(INVALID, "params is NULL");
    if (!out) return flashc_error(FLASHC_STATUS_INTERNAL_ERROR, "flashc_validate: problem is NULL");
    flashc_problem p;
    memset(&p, 0, sizeof p);

    TRY(check_backend(in));
    TRY(check_required_data(in));
    TRY(check_flags(in));
    TRY(check_dtypes(in, &p));
    TRY(check_pointer_alignment(in));
    TRY(check_q(in, &p));
    TRY(check_k(in, &p));
    TRY(check_v(in, &p));
    TRY(check_out(in, &p));
    TRY(check_heads(&p));
    TRY(check_lse(in, &p));
    TRY(check_bias(in, &p));
    TRY(check_alibi(in, &p));
    TRY(check_descale(&in->q_descale, "q_descale", &p, &p.q_descale, p.q_descale_stride));
    TRY(check_descale(&in->k_descale, "k_descale", &p, &p.k_descale, p.k_descale_stride));
    TRY(check_descale(&in->v_descale, "v_descale", &p, &p.v_descale, p.v_descale_stride));
    TRY(check_math(in, &p));
    TRY(check_cu_seqlens(p.cu_seqlens_q, "cu_seqlens_q", p.b, p.total_q, "q.shape[0] (total_q)", p.s_q,
                         "max_seqlen_q"));
    TRY(check_cu_seqlens(p.cu_seqlens_k, "cu_seqlens_k", p.b, p.total_k, "k.shape[0] (total_k)", p.s_k,
                         "max_seqlen_k"));
    TRY(check_seqused(&p));
    TRY(check_page_table(&p));

    p.backend = in->backend;
    *out = p;
    return FLASHC_STATUS_SUCCESS;
}

/* Base pointer and the first n_strides of the three outer strides of a q/k/v/out-like tensor:
   16-byte multiples. */
static flashc_status check_gpu_tensor(const void *ptr, const int64_t stride[3], int n_strides, int64_t elem,
                                      const char *name, int user_dim_offset)
{
    if (!is_aligned(ptr, FLASHC_GPU_ALIGN_BYTES))
        return flashc_error(FLASHC_STATUS_MISALIGNED, "%s.data (%p) is not %d-byte aligned (GPU paths load %d-byte "
                            "vectors)", name, ptr, FLASHC_GPU_ALIGN_BYTES, FLASHC_GPU_ALIGN_BYTES);
    for (int i = 0; i < n_strides; ++i)
        if ((stride[i] * elem) % FLASHC_GPU_ALIGN_BYTES != 0)
            return flashc_error(FLASHC_STATUS_MISALIGNED, "%s.stride[%d] = %lld elements (%lld bytes) is not a "
                                "multiple of %d bytes", name, i - user_dim_offset, (long long)stride[i],
                                (long long)(stride[i] * elem), FLASHC_GPU_ALIGN_BYTES);
    return FLASHC_STATUS_SUCCESS;
}

flashc_status flashc_validate_gpu(const flashc_problem *p)
{
    if (!p) return flashc_error(FLASHC_STATUS_INTERNAL_ERROR, "flashc_validate_gpu: problem is NULL");
    if (p->out_dtype == FLASHC_DTYPE_F32)
        return flashc_error(FLASHC_STATUS_DTYPE_MISMATCH,
                            "out.dtype = f32 needs the CPU backend; GPU backends write f16 or bf16");
    const int64_t in_bytes = dtype_bytes(p->in_dtype), out_bytes = dtype_bytes(p->out_dtype);
    /* Varlen tensors have no batch dimension: problem stride i is the user's stride i - 1. */
    const int kv_off = p->kv_layout == FLASHC_KV_VARLEN ? 1 : 0;
    TRY(check_gpu_tensor(p->q, p->q_stride, 3, in_bytes, "q", p->q_varlen));
    TRY(check_gpu_tensor(p->k, p->k_stride, 3, in_bytes, "k", kv_off));
    /* V^T rows (s_k, total_k or page_size keys) may have any length: chunks of keys that are not
       16-byte aligned are gathered byte by byte (slower; aligned rows are the fast path). */
    TRY(check_gpu_tensor(p->v, p->v_stride, p->v_transposed ? 2 : 3, in_bytes, "v", kv_off));
    TRY(check_gpu_tensor(p->o, p->o_stride, 3, out_bytes, "out", p->q_varlen));
    if (((int64_t)p->d * in_bytes) % FLASHC_GPU_ALIGN_BYTES != 0 || ((int64_t)p->d * out_bytes) % FLASHC_GPU_ALIGN_BYTES != 0)
        return flashc_error(FLASHC_STATUS_MISALIGNED, "head dim d = %d: d * element size is not a multiple of %d bytes",
                            (int)p->d, FLASHC_GPU_ALIGN_BYTES);
    TRY(check_elem_aligned(p->cu_seqlens_q, FLASHC_INDEX_BYTES, "cu_seqlens_q"));
    TRY(check_elem_aligned(p->cu_seqlens_k, FLASHC_INDEX_BYTES, "cu_seqlens_k"));
    TRY(check_elem_aligned(p->seqused_k, FLASHC_INDEX_BYTES, "seqused_k"));
    TRY(check_elem_aligned(p->page_table, FLASHC_INDEX_BYTES, "page_table"));
    return FLASHC_STATUS_SUCCESS;
}
