/* sm80 forward variant: bf16 inputs, head dim 128. */
#define FWD_BF16 1
#define FWD_HEAD_DIM 128
#define FWD_NAME flashc_sm80_fwd_bf16_d128
#include "sm80/fwd_kernel.cuh"
