/* sm80 forward variant: bf16 inputs, head dim 128, 64 query rows per CTA, 3-stage K/V ring
   (112 KB smem: built for sm_90 only, where two CTAs of it fit an SM; empty below).
   Fast-loader twin (FWD_DEEP_FAST, FWD_FAST_KV_ONLY): non-paged K/V with equal K/V strides only
   (fast_kv_ok), copied by the lean 16-bit loader instead of the general one. */
#define FWD_BF16 1
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 1
#define FWD_STAGES 3
#define FWD_MIN_ARCH 900
#define FWD_SKIP_IDLE_WARPS 1
#define FWD_DEEP_FAST 1
#define FWD_FAST_KV_ONLY 1
#define FWD_NAME flashc_sm80_fwd_bf16_d128_m64_s3_f
#include "sm80/fwd_kernel.cuh"
