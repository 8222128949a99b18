/* sm80 forward variant: the V-rows twin (FWD_V_ROWS, _vr) of fwd_int8_d256_m128_lm_f.cu:
   8-bit V in K's layout (v_transposed = 0). Same tile, ring and launch; host sm80_v_rows. */
#define FWD_V_ROWS 1
#include "sm80/fwd_int8_d256_m128_lm_f.cu"
