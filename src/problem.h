/*
 * flashc_problem: the validated, normalised form of flashc_attention_params that every backend
 * consumes (the CPU reference, the sm80 and sm90 launchers). Built by flashc_validate() only.
 * Plain C, includable from CUDA; passed to kernels by value or copied into kernel structs.
 *
 * Normalisation rules (all backends rely on them):
 *  - strides are in elements; a broadcast or absent dimension has stride 0;
 *  - varlen q: q_stride[0] == 0, rows are found through cu_seqlens_q; same for varlen k/v;
 *  - paged k/v: k_stride[0] / v_stride[0] step between pages, rows inside a page by [1];
 *  - window: causal sets window_right = 0; -1 means unbounded on that side;
 *  - softmax_scale is resolved (never 0); descale pointers are NULL when absent (= 1.0).
 */
#ifndef FLASHC_PROBLEM_H
#define FLASHC_PROBLEM_H

#include <stdint.h>
#include "flashc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flashc_kv_layout {
    FLASHC_KV_BATCHED = 0,
    FLASHC_KV_VARLEN = 1,
    FLASHC_KV_PAGED = 2
} flashc_kv_layout;

typedef struct flashc_problem {
    /* ---- data (device pointers on GPU backends, host pointers on the CPU backend) ---- */
    const void *q, *k, *v;
    void *o;
    float *lse;                   /* NULL: not requested */
    const int32_t *cu_seqlens_q;  /* NULL unless q_varlen */
    const int32_t *cu_seqlens_k;  /* NULL unless kv_layout == VARLEN */
    const int32_t *seqused_k;     /* NULL: every sequence uses its full key length */
    const int32_t *page_table;    /* NULL unless kv_layout == PAGED */
    const float *q_descale, *k_descale, *v_descale; /* NULL: 1.0 */
    const void *bias;             /* NULL: no bias tensor */
    const float *alibi;           /* NULL: no ALiBi */

    /* ---- types ---- */
    flashc_dtype in_dtype;        /* q, k and v */
    flashc_dtype out_dtype;
    flashc_dtype bias_dtype;

    /* ---- sizes ---- */
    int32_t b, h_q, h_kv, d;
    int32_t s_q;                  /* batched: extent; varlen: max_seqlen_q */
    int32_t s_k;                  /* batched: extent; varlen/paged: max_seqlen_k */
    int32_t total_q;              /* varlen: q.shape[0]; batched: b * s_q */
    int32_t total_k;              /* varlen: k.shape[0]; paged: num_pages * page_size; batched: b * s_k */
    int32_t q_varlen;             /* 1: q is [total_q, h_q, d] */
    flashc_kv_layout kv_layout;
    int32_t v_transposed;         /* 1: V sequence-innermost (see flashc.h) */
    int32_t page_size, num_pages, max_pages_per_seq;
    int64_t page_table_stride;

    /* ---- strides in elements ---- */
    int64_t q_stride[3];          /* batch (0 if varlen), row, head; d innermost */
    int64_t k_stride[3];          /* batch|page (0 if varlen), row, head */
    int64_t v_stride[3];          /* not transposed: as k. transposed: batch|page (0 if varlen), head, dim; seq innermost */
    int64_t o_stride[3];          /* as q */
    int64_t lse_stride[2];        /* batch (0 if varlen q), head; row innermost. varlen: row = global token */
    int64_t bias_stride[4];       /* b, h_q, row, col (0 where broadcast) */
    int64_t alibi_stride[2];      /* b (0 if [h_q]), h_q */
    int64_t q_descale_stride[2];  /* b, h_kv */
    int64_t k_descale_stride[2];
    int64_t v_descale_stride[2];

    /* ---- math ---- */
    float softmax_scale;
    float softcap;                /* 0: none */
    int32_t causal;
    int32_t window_left, window_right;

    flashc_backend backend;       /* the backend asked for (AUTO resolved by the dispatcher) */
} flashc_problem;

/* Record a failure for flashc_last_error() and return `status`. Defined in src/api.c. */
flashc_status flashc_error(flashc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Validation (src/validate.c). Fills *out only on success; writes no tensor. */
flashc_status flashc_validate(const flashc_attention_params *in, flashc_problem *out);
/* Alignment the GPU paths need (16-byte base pointers and row/head/batch strides). */
flashc_status flashc_validate_gpu(const flashc_problem *p);

/* Where *ptr lives as far as the host is concerned (src/api.c): host-readable (pageable, pinned or
   managed memory; everything when this process has no usable CUDA), device memory, or unknown
   (CUDA failed to answer, e.g. after a sticky error: neither host reads nor launches are safe).
   flashc_memory_kind_of is the rule alone (query_error a cudaError_t, memory_type a
   cudaMemoryType), for tests; flashc_pointer_kind asks CUDA and returns its error code too. */
typedef enum flashc_memory_kind {
    FLASHC_MEMORY_HOST = 0,
    FLASHC_MEMORY_DEVICE = 1,
    FLASHC_MEMORY_UNKNOWN = 2
} flashc_memory_kind;
flashc_memory_kind flashc_memory_kind_of(int query_error, int memory_type);
flashc_memory_kind flashc_pointer_kind(const void *ptr, int *query_error);
/* flashc_pointer_kind(ptr) == FLASHC_MEMORY_HOST: validation reads host index arrays only. */
int flashc_pointer_is_host(const void *ptr);
/* Why GPU kernels on `device` cannot read memory of a cudaMemoryType (`memory_type`) owned by
   `ptr_device` (mapped: pinned host memory whose device address is its host address), or NULL
   when they can. Pure; defined in src/api.c, tested by test_api. */
const char *flashc_gpu_memory_problem(int memory_type, int ptr_device, int mapped, int device);

/* CPU reference backend (src/reference.c): fp64 accumulation, every feature. */
flashc_status flashc_cpu_forward(const flashc_problem *p);

/* Per-sequence lengths and offsets, host side (CPU backend, host-visible validation). */
int32_t flashc_seqlen_q(const flashc_problem *p, int32_t bi);
int32_t flashc_seqlen_k(const flashc_problem *p, int32_t bi);

#ifdef __cplusplus
}
#endif

#endif /* FLASHC_PROBLEM_H */
