/* sm80 forward variant: the page-sub twin (FWD_PAGE_SUB, _pg) of fwd_f16_d128_m32_sk.cu, taken for 17-32
   packed rows on paged KV whose pages of 2^k keys (8 up to half a block) split a key block. Same
   tile, ring and launch. */
#define FWD_PAGE_SUB 1
#include "sm80/fwd_f16_d128_m32_sk.cu"
