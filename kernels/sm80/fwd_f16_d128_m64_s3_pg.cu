/* sm80 forward variant: f16 inputs, head dim 128, 64 query rows per CTA, 3-stage K/V ring
   (112 KB smem: built for sm_90 only, where two CTAs of it fit an SM; empty below).
   Page-sub variant (FWD_PAGE_SUB): taken only for paged KV whose 2^k-key pages split a key block. */
#define FWD_BF16 0
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 1
#define FWD_STAGES 3
#define FWD_MIN_ARCH 900
#define FWD_SKIP_IDLE_WARPS 1
#define FWD_PAGE_SUB 1
#define FWD_NAME flashc_sm80_fwd_f16_d128_m64_s3_pg
#include "sm80/fwd_kernel.cuh"
