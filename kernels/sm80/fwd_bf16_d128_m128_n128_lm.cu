/* sm80 forward variant: bf16 inputs, head dim 128, 128 query rows per CTA in 8 warps of 16 rows,
   128-key tiles;
   lean-mask twin (FWD_LEAN_MASK) that the host takes for causal / windowed problems. */
#define FWD_BF16 1
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 1
#define FWD_NUM_WARPS 8
#define FWD_BLOCK_N 128
#define FWD_NAME flashc_sm80_fwd_bf16_d128_m128_n128_lm
#define FWD_LEAN_MASK 1
#define FWD_LPT_TAIL 1
#include "sm80/fwd_kernel.cuh"
