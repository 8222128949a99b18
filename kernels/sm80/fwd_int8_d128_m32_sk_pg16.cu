/* sm80 forward variant: the page-sub twin for pages of exactly 16 keys (FWD_PAGE_SUB,
   FWD_VT_ROW_PAIRS: V^T stored as row pairs, _pg16) of the int8 d128 32-row split-key tile
   (fwd_int8_d128_m32_sk.cu). Same tile, ring and launch. */
#define FWD_PAGE_SUB 1
#define FWD_VT_ROW_PAIRS 1
#include "sm80/fwd_int8_d128_m32_sk.cu"
