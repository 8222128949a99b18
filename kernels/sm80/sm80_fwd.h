/*
 * sm80 path: kernel parameters shared by the host launcher (sm80_launch.cu), the forward kernel
 * variants (fwd_<dtype>_d<D>.cu, all built from fwd_kernel.cuh) and the split-KV combine kernel.
 */
#ifndef FLASHC_SM80_FWD_H
#define FLASHC_SM80_FWD_H

#include <cuda_runtime.h>
#include "problem.h"

/* 8-bit inputs (e4m3 on sm_89+, int8; head dims 64, 128 and 256; V sequence-innermost). On by
   default; 0 compiles those variant files to nothing and check() answers NOT_SUPPORTED for 8-bit
   inputs (a build switch for bisecting, not a support level). */
#ifndef FLASHC_SM80_ENABLE_8BIT
#define FLASHC_SM80_ENABLE_8BIT 1
#endif

/* Dev/test build switch (CMake FLASHC_SM80_E4M3_NATIVE): 1 compiles the sm_90 e4m3 kernels with
   sm_89's code (the native m16n8k32 e4m3 mma.sync, which ptxas expands for sm_90; P rounded to
   e4m3) instead of f16 MMAs on converted fragments, so the H200 runs and tests what Ada runs
   (scripts/gpu_suite.sh, its sm_89 pass). Slower on sm_90; never for a release build. */
#ifndef FLASHC_SM80_E4M3_NATIVE
#define FLASHC_SM80_E4M3_NATIVE 0
#endif

/* __CUDA_ARCH__ floors: the portable path (mma.sync, cp.async, ldmatrix) and e4m3 mma / cvt */
#define SM80_MIN_ARCH 800
#define SM80_E4M3_MIN_ARCH 890

#define SM80_NUM_WARPS 4
#define SM80_NUM_THREADS (SM80_NUM_WARPS * 32)
#define SM80_MAX_SPLITS 64  /* split-KV upper bound (combine kernel: one LSE per lane, two rounds) */

typedef struct sm80_fwd_params {
    flashc_problem p;
    float scale_log2;       /* softmax_scale * log2(e): scores straight into exp2 */
    float inv_softcap;      /* 1 / softcap (softcap != 0) */
    int32_t group;          /* h_q / h_kv */
    int32_t pack_gqa;       /* 1: a CTA holds the `group` query heads of one KV head (rows = s_q x group) */
    int32_t num_splits;     /* > 1: keys split across CTAs, partials to workspace, then combine */
    int32_t transform;      /* 1: softcap, bias or ALiBi present (scores turned into log2 units first) */
    uint32_t page_div_mul;  /* paged: j / page_size = umulhi(j, mul) >> shift for 0 <= j < 2^31 */
    uint32_t page_div_shift;/*        (mul 0: page_size 1); see sm80_page_divider() */
    int32_t page_block_keys;/* paged: the largest of 256, 128, 64, 32 dividing page_size (else 0): pages hold whole key blocks */
    float *ws_o;            /* [num_splits][total_q][h_q][d] f32 partial outputs (already / row sum) */
    float *ws_lse;          /* [num_splits][h_q][total_q] f32 partial LSE (natural log) */
    int32_t page_sub_shift; /* page-sub variants (FWD_PAGE_SUB) only: log2(page_size); row j of page id
                               g is virtual row g * page_size + j of K and V (fwd_kernel.cuh) */
    int32_t lpt_tail_pairs; /* FWD_LPT_TAIL tiles: the grid's last (head, batch) pairs launched m-major,
                               heaviest m-block first (fwd_kernel.cuh cta_coords); 0: no tail */
    int32_t rows_per_cta;   /* the wide split-key tiles (FWD_SK_ROW_HALVES): packed rows each CTA writes,
                               from blockIdx.x x rows_per_cta (row halves: half a 16-row tile); else BLOCK_M */
    int32_t sk_step;        /* split-key tiles: key blocks visited top, top - sk_step, ... (fwd_splitk.cuh
                               sk_key_walk): num_splits when the splits interleave, 1 for runs */
} sm80_fwd_params;

/* Per (dtype, head dim, rows per CTA) instantiations of fwd_kernel.cuh. */
#define SM80_DECLARE_FWD(name)                                                                   \
    cudaError_t name(const sm80_fwd_params *prm, int grid_m, int grid_h, int grid_z, cudaStream_t stream); \
    int name##_smem_bytes(void);                                                                  \
    int name##_block_n(void);                                                                     \
    int name##_block_m(void);                                                                     \
    int name##_min_cc(void);
#ifdef __cplusplus
extern "C" {
#endif
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128_n128)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256_m128_n64)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256_m64)
/* 8 warps of 16 rows (fwd_kernel.cuh FWD_NUM_WARPS): 128 x 128 (d128), 128 x 64 (d256) */
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128_n128)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256_m128_n64)
/* their lean-mask twins (FWD_LEAN_MASK), for causal / windowed problems */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128_n128_lm)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256_m128_n64_lm)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128_n128_lm)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256_m128_n64_lm)
/* fast-loader-only twins (FWD_FAST_KV_ONLY), for non-paged K/V with equal strides */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128_n128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128_n128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256_m128_n64_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256_m128_n64_f)
/* d64 m128 with the causal launch order (FWD_LPT_TAIL), for causal / windowed problems only */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m128_lm)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m128_lm)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m128_lm_f)
/* both (lean mask + fast loader only), for causal / windowed non-paged problems */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128_n128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128_n128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256_m128_n64_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256_m128_n64_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256_m64_n64_kv)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256_m64_n64_kv)
/* FlashAttention-2's d128 geometry: 4 warps x 2 row slabs, 64 keys, 2-stage ring (fast loader
   only; _lm: lean mask) */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128_n64_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128_n64_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m128_n64_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m128_n64_lm_f)
/* deep K/V rings for decode (sm_90 only, see fwd_kernel.cuh FWD_STAGES) */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m64_s4)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m64_s3)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m64_s4)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m64_s3)
/* their page-sub twins (FWD_PAGE_SUB: pages of 2^k keys inside a key block) */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m64_s4_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m64_s3_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m64_s4_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m64_s3_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m64_s4_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m64_s3_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m64_s4_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m64_s3_f)
/* split-key decode tiles (fwd_splitk.cuh: the 4 warps share the rows and split each key block) */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m32_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m32_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m32_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m32_sk)
/* their lean-loader twins (FWD_SK_FAST), for non-paged K/V */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m32_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m32_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m32_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m32_sk_f)
/* their whole-page lean-loader twins (FWD_SK_WHOLE_PAGES), for pages holding whole key blocks */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m32_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m32_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m32_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m32_sk_wp)
/* their page-sub twins (FWD_PAGE_SUB), for 17-32 rows on pages splitting a key block */
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128_m32_sk_pg)
#if FLASHC_SM80_ENABLE_8BIT
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m64)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m128)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m128_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m128_lm_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m64_s8)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m64_s6)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m64_s8)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m64_s6)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m64_s8_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m64_s6_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m64_s8_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m64_s6_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk)
/* page-sub twins (FWD_PAGE_SUB) of the 8-bit 32-row split-key tiles: pages of 32-64 keys (_pg) and of
   16 keys (_pg16, FWD_VT_ROW_PAIRS) */
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_pg)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_pg16)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_pg16)
/* lean-loader twins (FWD_SK_FAST) of the 8-bit split-key tiles, for non-paged K/V */
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_f)
/* whole-page lean-loader twins (FWD_SK_WHOLE_PAGES) of the 8-bit split-key tiles */
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_wp)
/* the wide (8-warp, 256-key) twins of the 8-bit d128 16-row split-key tile and their lean loaders */
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk8)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk8_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk8_wp)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk8)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk8_f)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk8_wp)
/* the wide (8-warp, 256-key) twin of the int8 d128 32-row split-key tile: lean loader only */
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk8_f)
/* V-rows twins (FWD_V_ROWS, _vr): 8-bit V in K's layout */
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m64_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m64_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m64_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m16_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m32_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m32_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk8_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk8_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m16_sk8_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m128_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m128_lm_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m128_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m128_lm_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m128_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m128_lm_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d64_m128_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d128_m128_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_e4m3_d256_m128_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m64_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m64_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m64_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m16_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m32_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m32_sk_pg_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk8_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk8_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m16_sk8_wp_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m128_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d64_m128_lm_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m128_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m128_lm_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m128_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m128_lm_f_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d128_m128_vr)
SM80_DECLARE_FWD(flashc_sm80_fwd_int8_d256_m128_vr)
#endif
/* split-KV combine; pdl: launch it as a programmatic dependent of the forward grid (sm_90+) */
cudaError_t flashc_sm80_combine(const sm80_fwd_params *prm, int pdl, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#endif /* FLASHC_SM80_FWD_H */
