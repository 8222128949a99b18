/* Hopper forward variant fwd_e4m3_d64 with per-sequence lengths (FWD_VARLEN: cu_seqlens, seqused_k,
   paged K/V) and score transforms (softcap where softcap > 0, ALiBi where slopes are given; see
   FWD_SOFTCAP in fwd_kernel.cuh): O from registers, no tail split. (fp8 d256 has none: its
   consumers spill with the sequence bounds and softcap together.) */
#define FWD_NAME flashc_sm90_fwd_e4m3_d64_vl_mod
#define FWD_VARLEN 1
#define FWD_O_STAGE 0
#define FWD_SOFTCAP 1
#define FWD_ALIBI 1
#define FWD_CONSUMER_WGS SM90_E4M3_D64_MOD_WGS /* 160 registers of 3 WGs spill */
#include "sm90/fwd_e4m3_d64.cu"
