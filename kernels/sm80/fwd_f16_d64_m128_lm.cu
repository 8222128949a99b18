/* sm80 forward variant: f16 inputs, head dim 64, 128 query rows per CTA, for causal / windowed
   prefill only: d64 m128 with the causal launch order (FWD_LPT_TAIL), which cost d64 m128 0.6-1 %
   on the non-causal problems it also serves. Paged or unequal-stride K/V (else _lm_f). */
#define FWD_BF16 0
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 2
#define FWD_NAME flashc_sm80_fwd_f16_d64_m128_lm
#define FWD_LEAN_MASK 1
#define FWD_LPT_TAIL 1
#include "sm80/fwd_kernel.cuh"
