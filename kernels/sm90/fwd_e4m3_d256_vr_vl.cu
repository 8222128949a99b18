/* Hopper forward variant fwd_e4m3_d256_vr with per-sequence lengths (FWD_VARLEN in fwd_kernel.cuh:
   cu_seqlens, seqused_k, paged K/V): O from registers, no tail split. */
#define FWD_NAME flashc_sm90_fwd_e4m3_d256_vr_vl
#define FWD_VARLEN 1
#define FWD_O_STAGE 0
#define FWD_V_ROWS 1
#include "sm90/fwd_e4m3_d256.cu"
