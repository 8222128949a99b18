/* Hopper forward variant fwd_f16_d64_long with the tail split (stream-K over the last round,
   sm90_fwd_params.tail_*); otherwise as fwd_f16_d64_long.cu. */
#define FWD_NAME flashc_sm90_fwd_f16_d64_long_tail
#define FWD_TAIL_SPLIT 1
#include "sm90/fwd_f16_d64_long.cu"
