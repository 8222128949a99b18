/*
 * sm80 path: kernel parameters shared by the host launcher (sm80_launch.cu), the forward kernel
 * variants (fwd_<dtype>_d<D>.cu, all built from fwd_kernel.cuh) and the split-KV combine kernel.
 */
#ifndef FLASHC_SM80_FWD_H
#define FLASHC_SM80_FWD_H

#include <cuda_runtime.h>
#include "problem.h"

#define SM80_BLOCK_M 64     /* query rows per CTA: 4 warps x one m16 slab */
#define SM80_NUM_WARPS 4
#define SM80_NUM_THREADS (SM80_NUM_WARPS * 32)
#define SM80_MAX_SPLITS 64  /* split-KV upper bound (combine kernel reads one LSE per lane pair) */

typedef struct sm80_fwd_params {
    flashc_problem p;
    float scale_log2;       /* softmax_scale * log2(e): scores straight into exp2 */
    float inv_softcap;      /* 1 / softcap (softcap != 0) */
    int32_t group;          /* h_q / h_kv */
    int32_t pack_gqa;       /* 1: a CTA holds the `group` query heads of one KV head (rows = s_q x group) */
    int32_t num_splits;     /* > 1: keys split across CTAs, partials to workspace, then combine */
    int32_t transform;      /* 1: softcap, bias or ALiBi present (scores turned into log2 units first) */
    float *ws_o;            /* [num_splits][total_q][h_q][d] f32 partial outputs (already / row sum) */
    float *ws_lse;          /* [num_splits][h_q][total_q] f32 partial LSE (natural log) */
} sm80_fwd_params;

/* Per (dtype, head dim) instantiations of fwd_kernel.cuh. */
#define SM80_DECLARE_FWD(name)                                                                   \
    cudaError_t name(const sm80_fwd_params *prm, int grid_m, int grid_h, int grid_z, cudaStream_t stream); \
    int name##_smem_bytes(void);                                                                  \
    int name##_block_n(void);
#ifdef __cplusplus
extern "C" {
#endif
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d64)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d128)
SM80_DECLARE_FWD(flashc_sm80_fwd_f16_d256)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d64)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d128)
SM80_DECLARE_FWD(flashc_sm80_fwd_bf16_d256)
cudaError_t flashc_sm80_combine(const sm80_fwd_params *prm, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#endif /* FLASHC_SM80_FWD_H */
