/* Hopper forward variant fwd_e4m3_d256_vr with ALiBi (FWD_ALIBI in fwd_kernel.cuh); no tail split. */
#define FWD_NAME flashc_sm90_fwd_e4m3_d256_vr_alibi
#define FWD_ALIBI 1
#include "sm90/fwd_e4m3_d256_vr.cu"
