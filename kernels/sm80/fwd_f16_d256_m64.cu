/* sm80 forward variant: f16 inputs, head dim 256, 64 query rows per CTA. */
#define FWD_BF16 0
#define FWD_HEAD_DIM 256
#define FWD_M_SLABS 1
#define FWD_NAME flashc_sm80_fwd_f16_d256_m64
#include "sm80/fwd_kernel.cuh"
