/* sm80 forward variant: int8 inputs (V sequence-innermost), head dim 256, 128 query rows per CTA in
   8 warps of 16 rows, all 256 O columns per CTA (FWD_D_SPLIT 1), 32-key tiles.
   Routed on sm_90 by sm80_8bit_two_slab (sm80_launch.cu), in place of the 64-row half-O tile.
   Compiled only with FLASHC_SM80_ENABLE_8BIT (sm80_fwd.h). */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_INT8 1
#define FWD_HEAD_DIM 256
#define FWD_M_SLABS 1
#define FWD_NUM_WARPS 8
#define FWD_D_SPLIT 1
#define FWD_NAME flashc_sm80_fwd_int8_d256_m128
#include "sm80/fwd_kernel.cuh"
#endif
