/* sm80 forward variant: f16 inputs, head dim 64, 64 query rows per CTA, 4-stage K/V ring
   (72 KB smem: built for sm_90 only, where two CTAs of it fit an SM; empty below). */
#define FWD_BF16 0
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 1
#define FWD_STAGES 4
#define FWD_MIN_ARCH 900
#define FWD_SKIP_IDLE_WARPS 1
#define FWD_NAME flashc_sm80_fwd_f16_d64_m64_s4
#include "sm80/fwd_kernel.cuh"
