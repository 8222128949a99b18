/* Hopper forward variant fwd_bf16_d256 with per-sequence lengths (FWD_VARLEN in fwd_kernel.cuh:
   cu_seqlens, seqused_k, paged K/V): O from registers, no tail split. */
#define FWD_NAME flashc_sm90_fwd_bf16_d256_vl
#define FWD_VARLEN 1
#define FWD_O_STAGE 0
#include "sm90/fwd_bf16_d256.cu"
