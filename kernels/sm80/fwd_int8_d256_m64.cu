/* sm80 forward variant: int8 inputs (V sequence-innermost), head dim 256, 64 query rows per CTA.
   Compiled only with FLASHC_SM80_ENABLE_8BIT (sm80_fwd.h). */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_INT8 1
#define FWD_HEAD_DIM 256
#define FWD_M_SLABS 1
#define FWD_NAME flashc_sm80_fwd_int8_d256_m64
#include "sm80/fwd_kernel.cuh"
#endif
