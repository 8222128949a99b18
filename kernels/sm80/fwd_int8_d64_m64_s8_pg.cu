/* sm80 forward variant: int8 inputs (V sequence-innermost), head dim 64, 64 query rows per CTA,
   8-stage K/V ring for decode: an 8-bit key block is only 4 KB (32 keys of K and V^T), so
   7 blocks (28 KB) stay in flight per CTA; 36 KB smem. Built for sm_90 only, like the 16-bit
   deep variants; empty below.
   Page-sub variant (FWD_PAGE_SUB): taken only for paged KV whose 2^k-key pages split a key block. */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_INT8 1
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 1
#define FWD_STAGES 8
#define FWD_MIN_ARCH 900
#define FWD_SKIP_IDLE_WARPS 1
#define FWD_PAGE_SUB 1
#define FWD_NAME flashc_sm80_fwd_int8_d64_m64_s8_pg
#include "sm80/fwd_kernel.cuh"
#endif
