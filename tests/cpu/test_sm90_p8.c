/*
 * The Hopper fp8 kernel's P exchange (kernels/sm90/sm90_p8.h, used by fwd_convert_p) replayed on
 * the CPU for one lane quad: every byte of every A-fragment register must hold the (row, key) the
 * 8-bit wgmma reads there. Each score is tagged with its own (row, key) instead of a value, the
 * shuffles become array reads and prmt is emulated, so a wrong source lane, block or selector
 * shows up as a wrong tag. No GPU needed.
 */
#include <stdint.h>
#include <stdio.h>

#include "sm90/sm90_p8.h"

enum { LANES = 4, KEYS = 256, GROUPS = KEYS / 16, S_REGS = KEYS / 2, P_REGS = KEYS / 8 };

/* A score's tag: its row (0 = g, 1 = g+8) and key (0..255). */
typedef struct tag {
    int row, key;
} tag;

/* prmt.b32 d, a, b, c (PTX ISA §9.7.9.7, default mode): byte i of d is byte c[4i+2 : 4i] of {b, a}. */
static uint64_t prmt_pick(uint64_t a8, uint64_t b8, uint32_t sel, int i)
{
    const int src = (sel >> (4 * i)) & 7;
    return src < 4 ? (a8 >> (16 * src)) & 0xffff : (b8 >> (16 * (src - 4))) & 0xffff;
}

int main(void)
{
    /* A tag needs 9 bits, so each byte of the kernel's 32-bit words is a 16-bit slot of a 64-bit
       word here (row << 8 | key); the data movement is the same. */
    tag acc[LANES][S_REGS];
    for (int t = 0; t < LANES; ++t)
        for (int j = 0; j < KEYS / 8; ++j)
            for (int r = 0; r < 2; ++r)
                for (int c = 0; c < 2; ++c) { /* accumulator layout: s[4j + 2r + c] = (row r, key 8j + 2t + c) */
                    acc[t][4 * j + 2 * r + c].row = r;
                    acc[t][4 * j + 2 * r + c].key = 8 * j + 2 * t + c;
                }
#define SLOT(x) ((uint64_t)((x).row << 8 | (x).key))
    uint64_t pf[LANES][P_REGS];
    for (int g = 0; g < GROUPS; ++g) {
        uint64_t w_lo[LANES], w_hi[LANES];
        for (int t = 0; t < LANES; ++t) { /* byte order of fwd_convert_p's words: (r0 c0, r0 c1, r1 c0, r1 c1) */
            const tag *lo = &acc[t][8 * g], *hi = &acc[t][8 * g + 4];
            w_lo[t] = SLOT(lo[0]) | SLOT(lo[1]) << 16 | SLOT(lo[2]) << 32 | SLOT(lo[3]) << 48;
            w_hi[t] = SLOT(hi[0]) | SLOT(hi[1]) << 16 | SLOT(hi[2]) << 32 | SLOT(hi[3]) << 48;
        }
        for (int t = 0; t < LANES; ++t) {
            const int src = SM90_P8_SRC(t);
            const uint64_t first = SM90_P8_FIRST_SENDS_HIGH(src) ? w_hi[src] : w_lo[src];
            const uint64_t second = SM90_P8_FIRST_SENDS_HIGH(src ^ 1) ? w_lo[src ^ 1] : w_hi[src ^ 1];
            uint64_t r0 = 0, r1 = 0;
            for (int i = 0; i < 4; ++i) {
                r0 |= prmt_pick(first, second, SM90_P8_SEL_ROW0(t), i) << (16 * i);
                r1 |= prmt_pick(first, second, SM90_P8_SEL_ROW1(t), i) << (16 * i);
            }
            pf[t][2 * g] = r0;
            pf[t][2 * g + 1] = r1;
        }
    }
#undef SLOT
    /* 8-bit A fragment of k-step kk (ptx/wgmma.h): register q of the step, byte e = row q & 1,
       key 32 kk + 16 (q >> 1) + 4t + e. */
    int bad = 0, checked = 0;
    for (int t = 0; t < LANES; ++t)
        for (int kk = 0; kk < KEYS / 32; ++kk)
            for (int q = 0; q < 4; ++q)
                for (int e = 0; e < 4; ++e) {
                    const uint64_t got = (pf[t][4 * kk + q] >> (16 * e)) & 0xffff;
                    const int row = (int)(got >> 8), key = (int)(got & 0xff);
                    const int want_row = q & 1, want_key = 32 * kk + 16 * (q >> 1) + 4 * t + e;
                    ++checked;
                    if (row != want_row || key != want_key) {
                        if (bad < 10)
                            printf("FAIL lane %d k-step %d register %d byte %d: row %d key %d, want row %d key %d\n", t,
                                   kk, q, e, row, key, want_row, want_key);
                        ++bad;
                    }
                }
    printf("%d of %d P fragment bytes in place%s\n", checked - bad, checked, bad ? "" : ": pass");
    return bad != 0;
}
