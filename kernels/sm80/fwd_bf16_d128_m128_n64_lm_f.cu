/* sm80 forward variant: bf16 inputs, head dim 128, 128 query rows per CTA in 4 warps of two row
   slabs (FlashAttention-2's d128 geometry: each K/V fragment read from smem feeds both slabs),
   64-key tiles, 2-stage K/V ring (96 KB: two CTAs per SM on sm_90), lean mask, fast K/V loader
   only. Routed by sm80_launch.cu's sm80_two_slab where two CTAs fit an SM, which only sm_90's
   227 KB allows: below sm_90 an empty body. */
#define FWD_BF16 1
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 2
#define FWD_BLOCK_N 64
#define FWD_NAME flashc_sm80_fwd_bf16_d128_m128_n64_lm_f
#define FWD_LEAN_MASK 1
#define FWD_LPT_TAIL 1
#define FWD_FAST_KV_ONLY 1
#define FWD_MIN_ARCH 900
#define FWD_WARP_EPILOGUE 1 /* per-warp O store (H200 bf16: +0.9-1.6 % at 512) */
#define FWD_Q_AFTER_KV 1    /* K/V copies before Q's (H200 bf16: +0.3-1.0 % at 512-1k) */
#include "sm80/fwd_kernel.cuh"
