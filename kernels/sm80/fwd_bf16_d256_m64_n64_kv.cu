/* sm80 forward variant: bf16 inputs, head dim 256, 64 query rows per CTA in 4 warps, 64-key
   tiles, one K and one V buffer copied in turn (FWD_KV_STAGGER; 96 KB, two CTAs per SM), lean
   mask, fast K/V loader only. Routed for causal prefill with s_k <= 2048 where two CTAs fit per
   SM (sm80_launch.cu, SM80_KV_STAGGER_MAX_KEYS). */
#define FWD_BF16 1
#define FWD_HEAD_DIM 256
#define FWD_M_SLABS 1
#define FWD_BLOCK_N 64
#define FWD_STAGES 1
#define FWD_KV_STAGGER 1
#define FWD_NAME flashc_sm80_fwd_bf16_d256_m64_n64_kv
#define FWD_LEAN_MASK 1
#define FWD_LPT_TAIL 1
#define FWD_FAST_KV_ONLY 1
#include "sm80/fwd_kernel.cuh"
