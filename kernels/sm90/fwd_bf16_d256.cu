/* Hopper forward variant: bf16, head dim 256. The kernel body is fwd_kernel.cuh. */
#ifndef FWD_NAME
#define FWD_NAME flashc_sm90_fwd_bf16_d256
#endif
#define FWD_ELEM bf16
#define FWD_ELEM_IS_BF16 1
#define FWD_HEAD_DIM 256
#define FWD_CONSUMER_WGS SM90_D256_WGS
#define FWD_BLOCK_N SM90_D256_BLOCK_N
#define FWD_KV_STAGES SM90_D256_STAGES
#define FWD_Q_SLOTS SM90_D256_Q_SLOTS
#ifndef FWD_O_STAGE /* the varlen variants (_vl) store O from registers */
#define FWD_O_STAGE SM90_D256_O_STAGE
#endif
#define FWD_LAZY_RESCALE SM90_D256_LAZY_RESCALE
#include "sm90/fwd_kernel.cuh"
