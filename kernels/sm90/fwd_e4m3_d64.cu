/* Hopper forward variant: fp8 e4m3, head dim 64, V pre-transposed (or, with FWD_V_ROWS from
   fwd_e4m3_d64_vr.cu, in K's layout and transposed in the kernel). The kernel body is fwd_kernel.cuh. */
#ifndef FWD_V_ROWS
#define FWD_V_ROWS 0
#endif
#ifndef FWD_NAME
#define FWD_NAME flashc_sm90_fwd_e4m3_d64
#endif
#define FWD_ELEM e4m3
#define FWD_ELEM_IS_BF16 0
#define FWD_ELEM_IS_E4M3 1
#define FWD_HEAD_DIM 64
#ifndef FWD_CONSUMER_WGS /* the per-sequence score-transform variants (_vl_mod) take 2 */
#define FWD_CONSUMER_WGS SM90_E4M3_D64_WGS
#endif
#define FWD_BLOCK_N SM90_E4M3_D64_BLOCK_N
#define FWD_KV_STAGES SM90_E4M3_D64_STAGES
#define FWD_Q_SLOTS SM90_E4M3_D64_Q_SLOTS
#ifndef FWD_O_STAGE /* the varlen variants (_vl) store O from registers */
#define FWD_O_STAGE (FWD_V_ROWS ? SM90_E4M3_VR_D64_O_STAGE : SM90_E4M3_D64_O_STAGE)
#endif
#define FWD_LAZY_RESCALE SM90_E4M3_D64_LAZY_RESCALE
#include "sm90/fwd_kernel.cuh"
