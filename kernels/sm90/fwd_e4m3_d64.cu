/* Hopper forward variant: fp8 e4m3 with V pre-transposed, head dim 64. The kernel body is fwd_kernel.cuh. */
#ifndef FWD_NAME
#define FWD_NAME flashc_sm90_fwd_e4m3_d64
#endif
#define FWD_ELEM e4m3
#define FWD_ELEM_IS_BF16 0
#define FWD_ELEM_IS_E4M3 1
#define FWD_HEAD_DIM 64
#define FWD_CONSUMER_WGS SM90_E4M3_D64_WGS
#define FWD_BLOCK_N SM90_E4M3_D64_BLOCK_N
#define FWD_KV_STAGES SM90_E4M3_D64_STAGES
#define FWD_Q_SLOTS SM90_E4M3_D64_Q_SLOTS
#define FWD_O_STAGE SM90_E4M3_D64_O_STAGE
#define FWD_LAZY_RESCALE SM90_E4M3_D64_LAZY_RESCALE
#include "sm90/fwd_kernel.cuh"
