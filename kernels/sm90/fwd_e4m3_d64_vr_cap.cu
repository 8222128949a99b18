/* Hopper forward variant fwd_e4m3_d64_vr with softcap (and ALiBi when slopes are given), see
   FWD_SOFTCAP in fwd_kernel.cuh; no tail split. */
#define FWD_NAME flashc_sm90_fwd_e4m3_d64_vr_cap
#define FWD_SOFTCAP 1
#define FWD_ALIBI 1
#include "sm90/fwd_e4m3_d64_vr.cu"
