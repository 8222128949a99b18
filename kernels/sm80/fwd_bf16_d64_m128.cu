/* sm80 forward variant: bf16 inputs, head dim 64, 128 query rows per CTA. */
#define FWD_BF16 1
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 2
#define FWD_NAME flashc_sm80_fwd_bf16_d64_m128
#define FWD_LEAN_MASK 1
#include "sm80/fwd_kernel.cuh"
