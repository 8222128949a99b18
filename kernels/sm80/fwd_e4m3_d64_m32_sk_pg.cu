/* sm80 forward variant: the page-sub twin (FWD_PAGE_SUB, _pg) of the e4m3 d64 32-row split-key tile
   (fwd_e4m3_d64_m32_sk.cu), taken only for paged KV whose pages of 32 or 64 keys split a 128-key
   block (pages of 16: the _pg16 twin). Same tile, ring and launch. */
#define FWD_PAGE_SUB 1
#include "sm80/fwd_e4m3_d64_m32_sk.cu"
