/* Hopper forward variant: fp8 e4m3 with V in K's layout ([b, s_k, h_kv, d]), head dim 256: the
   producer warpgroup transposes each V stage in shared memory (fwd_kernel.cuh, FWD_V_ROWS);
   otherwise as fwd_e4m3_d256.cu. */
#ifndef FWD_NAME
#define FWD_NAME flashc_sm90_fwd_e4m3_d256_vr
#endif
#define FWD_V_ROWS 1
#include "sm90/fwd_e4m3_d256.cu"
