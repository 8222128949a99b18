/* sm80 forward variant: f16 inputs, head dim 128, 128 query rows per CTA. */
#define FWD_BF16 0
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 2
#define FWD_NAME flashc_sm80_fwd_f16_d128_m128
#include "sm80/fwd_kernel.cuh"
