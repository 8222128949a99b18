/* Hopper forward variant fwd_f16_d256 with per-sequence lengths (FWD_VARLEN: cu_seqlens, seqused_k,
   paged K/V) and score transforms (softcap where softcap > 0, ALiBi where slopes are given; see
   FWD_SOFTCAP in fwd_kernel.cuh): O from registers, no tail split. */
#define FWD_NAME flashc_sm90_fwd_f16_d256_vl_mod
#define FWD_VARLEN 1
#define FWD_O_STAGE 0
#define FWD_SOFTCAP 1
#define FWD_ALIBI 1
#include "sm90/fwd_f16_d256.cu"
