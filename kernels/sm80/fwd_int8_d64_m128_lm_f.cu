/* sm80 forward variant: int8 inputs (V sequence-innermost), head dim 64, 128 query rows per CTA in 4
   warps of two row slabs (each K / V^T fragment read from smem feeds both), 32-key tiles.
   Routed on sm_90 by sm80_8bit_two_slab (sm80_launch.cu).
   Lean-loader twin (FWD_FAST_KV_ONLY): non-paged, non-varlen K/V with V^T d-rows a multiple of 16 bytes
   apart (sm80_8bit_fast_ok); the general loader is compiled out. This lean-mask twin (FWD_LEAN_MASK,
   FWD_LPT_TAIL) serves causal / windowed problems (sm80_8bit_lean_mask).
   Compiled only with FLASHC_SM80_ENABLE_8BIT (sm80_fwd.h). */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_INT8 1
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 2
#define FWD_NAME flashc_sm80_fwd_int8_d64_m128_lm_f
#define FWD_LEAN_MASK 1
#define FWD_LPT_TAIL 1
#define FWD_FAST_KV_ONLY 1
#include "sm80/fwd_kernel.cuh"
#endif
