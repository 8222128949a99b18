/* Hopper forward variant fwd_e4m3_d256_vr with the tail split (stream-K over the last round,
   sm90_fwd_params.tail_*); otherwise as fwd_e4m3_d256_vr.cu. */
#define FWD_NAME flashc_sm90_fwd_e4m3_d256_vr_tail
#define FWD_TAIL_SPLIT 1
#include "sm90/fwd_e4m3_d256_vr.cu"
