/* Hopper forward variant fwd_f16_d256 for packed sequences (cu_seqlens_q / _k, FWD_VARLEN in
   fwd_kernel.cuh): O from registers, no tail split. */
#define FWD_NAME flashc_sm90_fwd_f16_d256_vl
#define FWD_VARLEN 1
#define FWD_O_STAGE 0
#include "sm90/fwd_f16_d256.cu"
