/*
 * flashc — exact FlashAttention forward pass for NVIDIA Hopper and Ada, with a C ABI.
 *
 *   O = softmax( mask( softcap( scale · (Q·dq)(K·dk)ᵀ ) + bias + alibi ) ) · (V·dv)
 *
 * One header, C99-clean, no CUDA headers needed: the stream is `struct CUstream_st *`, which is the
 * same type as `cudaStream_t` / `CUstream`, so CUDA users pass their stream directly.
 *
 * Conventions
 *  - Every tensor is a flashc_tensor: pointer, dtype, rank, shape and strides counted in ELEMENTS.
 *    The innermost dimension (the last one listed in each shape comment) must be contiguous
 *    (stride 1). Other strides are free (0 is allowed where a comment says "broadcast").
 *  - "b" is the batch (number of sequences), "s_q"/"s_k" sequence lengths, "h_q"/"h_kv" heads
 *    (h_q a multiple of h_kv: GQA/MQA), "d" the head dimension.
 *  - Masks follow flash-attn: query i of s_q attends key j of s_k iff
 *        j <= i + (s_k - s_q) + window_right   and   j >= i + (s_k - s_q) - window_left,
 *    a window bound of -1 is unbounded; causal is window_right = 0 (bottom-right aligned).
 *  - A query row with no key to attend outputs zeros and LSE = -INFINITY.
 *  - The library never prints, exits or aborts. Every call returns a flashc_status; on failure
 *    flashc_last_error() (thread-local) names the offending argument and nothing was written.
 */
#ifndef FLASHC_H
#define FLASHC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLASHC_VERSION_MAJOR 0
#define FLASHC_VERSION_MINOR 1
#define FLASHC_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH */
#define FLASHC_VERSION (FLASHC_VERSION_MAJOR * 10000 + FLASHC_VERSION_MINOR * 100 + FLASHC_VERSION_PATCH)

#if defined(_WIN32) && defined(FLASHC_BUILDING_SHARED)
#define FLASHC_API __declspec(dllexport)
#elif defined(__GNUC__)
#define FLASHC_API __attribute__((visibility("default")))
#else
#define FLASHC_API
#endif

/* ---- Status codes (values are pinned: part of the ABI) ----------------------------------- */
typedef enum flashc_status {
    FLASHC_STATUS_SUCCESS = 0,
    FLASHC_STATUS_INVALID_ARGUMENT = 1,    /* null pointer, bad shape, stride or value */
    FLASHC_STATUS_DTYPE_MISMATCH = 2,      /* dtypes that do not go together */
    FLASHC_STATUS_MISALIGNED = 3,          /* pointer or stride not aligned as the GPU path needs */
    FLASHC_STATUS_NOT_SUPPORTED = 4,       /* a valid combination no kernel implements (yet) */
    FLASHC_STATUS_WORKSPACE_TOO_SMALL = 5, /* see flashc_attention_workspace_size() */
    FLASHC_STATUS_NO_DEVICE = 6,           /* GPU backend asked for, no usable CUDA device */
    FLASHC_STATUS_CUDA_ERROR = 7,          /* a CUDA runtime call or kernel launch failed */
    FLASHC_STATUS_OUT_OF_MEMORY = 8,       /* host allocation in the CPU backend failed */
    FLASHC_STATUS_INTERNAL_ERROR = 9
} flashc_status;

/* ---- Element types (values are pinned) --------------------------------------------------- */
typedef enum flashc_dtype {
    FLASHC_DTYPE_F32 = 0,      /* outputs on the CPU backend, LSE, descales, bias, ALiBi slopes */
    FLASHC_DTYPE_F16 = 1,
    FLASHC_DTYPE_BF16 = 2,
    FLASHC_DTYPE_FP8_E4M3 = 3, /* OCP e4m3fn: bias 7, no infinities, 0x7f/0xff are NaN, max 448 */
    FLASHC_DTYPE_INT8 = 4      /* two's complement, dequantized by multiplying with its descale */
} flashc_dtype;

/* ---- Backends (values are pinned) -------------------------------------------------------- */
typedef enum flashc_backend {
    FLASHC_BACKEND_AUTO = 0, /* q in device memory -> best GPU path for the current device; q anywhere
                                else (host, pinned or managed memory) -> CPU */
    FLASHC_BACKEND_CPU = 1,  /* fp64 reference on the host; every feature and dtype; all pointers host */
    FLASHC_BACKEND_SM80 = 2, /* portable mma.sync path (sm_80+, fp8 needs sm_89+) */
    FLASHC_BACKEND_SM90 = 3  /* Hopper TMA + wgmma path (sm_90a) */
} flashc_backend;

#define FLASHC_MAX_DIMS 4

/* The CUDA stream type (cudaStream_t and CUstream are pointers to it); declared here so this
   header needs no CUDA header. */
struct CUstream_st;

/* A strided view of memory. Unused optional tensors have data == NULL (the rest is ignored). */
typedef struct flashc_tensor {
    void *data;
    flashc_dtype dtype;
    int32_t ndim;                      /* number of valid entries in shape/stride */
    int64_t shape[FLASHC_MAX_DIMS];
    int64_t stride[FLASHC_MAX_DIMS];   /* in elements; innermost must be 1 */
} flashc_tensor;

/*
 * Arguments of one attention forward call. Zero-initialise (`flashc_attention_params p = {0};`
 * or flashc_attention_params_init()) and fill what you use: every optional field's zero value
 * means "absent", except window_left/right, which must be -1 for "unbounded" (init sets them).
 *
 * Q layouts (chosen by cu_seqlens_q):
 *   batched  q [b, s_q, h_q, d]                    cu_seqlens_q == NULL
 *   varlen   q [total_q, h_q, d]                   cu_seqlens_q [b+1], max_seqlen_q, batch = b
 * K/V layouts (chosen by page_table, then cu_seqlens_k):
 *   batched  k [b, s_k, h_kv, d]
 *   varlen   k [total_k, h_kv, d]                  cu_seqlens_k [b+1], max_seqlen_k
 *   paged    k [num_pages, page_size, h_kv, d]     page_table [b, max_pages_per_seq], seqused_k [b]
 * V has K's layout, or with v_transposed = 1 (8-bit dtypes only) the sequence is innermost:
 *   batched  v [b, h_kv, d, s_k]   varlen v [h_kv, d, total_k]   paged v [num_pages, h_kv, d, page_size]
 * out has q's shape. lse is [b, h_q, s_q] (batched q) or [h_q, total_q] (varlen q), float32.
 * K/V rows that no sequence uses (past seqused_k, the rest of a page, pages of no sequence, rows
 * after the last packed sequence) never affect the result and may hold any bytes, NaN included.
 */
typedef struct flashc_attention_params {
    flashc_tensor q;              /* see layouts above; f16, bf16, fp8 e4m3 or int8 */
    flashc_tensor k;              /* same dtype as q */
    flashc_tensor v;              /* same dtype as q */
    flashc_tensor out;            /* q's shape; f16 or bf16 (f32 on the CPU backend) */
    flashc_tensor lse;            /* optional (data may be NULL); float32, natural log */
    int32_t v_transposed;         /* 1: V given sequence-innermost (8-bit dtypes only; the Hopper
                                     path's fp8 kernels read it as is, rows of 16-byte multiples;
                                     0: they transpose V in shared memory) */

    int32_t batch;                /* b; required for varlen q, else 0 or q.shape[0] */
    const int32_t *cu_seqlens_q;  /* [b+1] int32, may be NULL: varlen q */
    const int32_t *cu_seqlens_k;  /* [b+1] int32, may be NULL: varlen k/v (not with page_table) */
    const int32_t *seqused_k;     /* [b] int32, may be NULL: keys used per sequence (required if paged) */
    int32_t max_seqlen_q;         /* varlen q: upper bound of the sequence lengths */
    int32_t max_seqlen_k;         /* varlen or paged k: upper bound of the key lengths */

    const int32_t *page_table;    /* [b, max_pages_per_seq] int32, may be NULL: paged k/v */
    int64_t page_table_stride;    /* elements between two sequences' rows of page_table */
    int32_t max_pages_per_seq;

    /* 8-bit dequant scales: float32 [b, h_kv] with broadcast strides (stride 0 = one value),
       positive and finite (device memory is not inspected: other values give undefined output).
       q_descale is indexed by the KV head that a query head reads. May be NULL (= 1). */
    flashc_tensor q_descale;
    flashc_tensor k_descale;
    flashc_tensor v_descale;

    float softmax_scale;          /* 0 -> 1/sqrt(d) */
    float softcap;                /* 0 -> none; else s = softcap * tanh(s / softcap) before bias */
    int32_t causal;               /* 1: bottom-right aligned causal mask (window_right = 0) */
    int32_t window_left;          /* -1: unbounded */
    int32_t window_right;         /* -1: unbounded */

    /* additive bias [b|1, h_q|1, s_q, s_k] in f32, f16 or bf16; broadcast dims have stride 0
       (or extent 1). For varlen, s_q/s_k are max_seqlen_q/k and rows index within a sequence. */
    flashc_tensor bias;
    /* ALiBi slopes float32 [h_q] or [b, h_q]: adds -slope * |i + s_k - s_q - j|. */
    flashc_tensor alibi_slopes;

    flashc_backend backend;       /* FLASHC_BACKEND_AUTO picks by pointer location and device */
} flashc_attention_params;

/* ---- Calls ------------------------------------------------------------------------------- */

FLASHC_API int flashc_version(void); /* FLASHC_VERSION of the library actually loaded */
FLASHC_API const char *flashc_status_string(flashc_status status); /* never NULL */
/* Detail of the last failure on this thread ("" after a success); valid until the next call. */
FLASHC_API const char *flashc_last_error(void);

/* Zeroes *p and sets window_left = window_right = -1. */
FLASHC_API void flashc_attention_params_init(flashc_attention_params *p);

/* Fill a tensor view with contiguous strides for `ndim` extents. Returns the tensor by value. */
FLASHC_API flashc_tensor flashc_make_tensor(void *data, flashc_dtype dtype, int32_t ndim,
                                            const int64_t *shape);

/* Validate *p without running it (the same checks flashc_attention_forward makes). */
FLASHC_API flashc_status flashc_attention_check(const flashc_attention_params *p);

/* Bytes of device workspace flashc_attention_forward needs for *p (0 when none). The answer
   depends only on shapes, dtypes and the backend/device, never on data. Non-zero for split-KV
   (decode-shaped problems on the portable path) and for the tail split of long non-causal
   problems on the Hopper path (17 MB for head dim 128 on a 132-SM H200). */
FLASHC_API flashc_status flashc_attention_workspace_size(const flashc_attention_params *p,
                                                         size_t *bytes);

/* Run the forward pass. GPU backends run on the current CUDA device, asynchronously on `stream`
   (NULL = legacy default stream), do no host synchronisation and no allocation, so they can be
   graph-captured; every pointer must be that device's memory, managed memory or mapped pinned
   host memory (another device's memory or pageable host memory: INVALID_ARGUMENT); workspace
   must be at least the queried size (may be NULL when 0). The CPU backend runs synchronously on
   the calling thread and ignores workspace and stream. */
FLASHC_API flashc_status flashc_attention_forward(const flashc_attention_params *p,
                                                  void *workspace, size_t workspace_bytes,
                                                  struct CUstream_st *stream);

/* The backend FLASHC_BACKEND_AUTO would choose for *p (after validation). */
FLASHC_API flashc_status flashc_attention_select_backend(const flashc_attention_params *p,
                                                         flashc_backend *backend);

/* Release cached per-device state (the Hopper path's tensor maps; device attributes, which never
   change, stay cached). Optional; safe while other threads make calls. */
FLASHC_API void flashc_release_caches(void);

#ifdef __cplusplus
}
#endif

#endif /* FLASHC_H */
