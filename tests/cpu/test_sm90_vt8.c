/*
 * The Hopper fp8 kernel's in-kernel V transpose (kernels/sm90/sm90_vt8.h, fwd_transpose_stage and
 * fwd_convert_p under FWD_V_ROWS) replayed on the CPU for every lane of a warp:
 *   1. a stage of V rows is laid out as TMA writes it (swizzled), each byte tagged (key, column);
 *   2. every unit runs through emulated ldmatrix.x4.trans, prmt and stmatrix.x4 with the header's
 *      addresses and selectors;
 *   3. V^T, read back the way the P.V wgmma descriptor reads it, must hold at position x of row c
 *      the key SM90_VT8_KEY(x) says, column c, every byte written exactly once;
 *   4. the P packing must put in byte i of lane t's register for group G the score of the key V^T
 *      holds at position 16 G + 4t + i;
 *   5. the 8 row addresses of every ldmatrix / stmatrix phase must fall in 8 different 16-byte
 *      bank groups (no bank conflicts).
 * Head dims 64 (64-byte rows, 64-byte swizzle), 128 and 256 (two panels). No GPU needed.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sm90/sm90_vt8.h"

enum { LANES = 32, N = 128, MAX_D = 256, BYTES = N * MAX_D };

/* A byte's tag (key << 16 | column), one 32-bit slot per emulated byte. */
static uint32_t g_v[BYTES], g_vt[BYTES];
static int g_written[BYTES];
static int g_bad;

static void fail(const char *what, int a, int b, int c, uint32_t got, uint32_t want)
{
    if (g_bad < 12) printf("FAIL %s (%d, %d, %d): got %08x, want %08x\n", what, a, b, c, got, want);
    ++g_bad;
}

/* The 8 rows of one matrix phase: 16-byte rows at offsets[0..7] must hit 8 different bank groups. */
static void check_phase(const char *what, const int offsets[8], int d)
{
    int seen = 0;
    for (int i = 0; i < 8; ++i) seen |= 1 << ((offsets[i] / 16) % 8);
    if (seen != 0xff) fail(what, d, offsets[0], offsets[1], (uint32_t)seen, 0xffu);
}

/* prmt.b32 (PTX ISA §9.7.9.7, default mode) on 4-byte registers of tags: byte i of the result is
   byte sel[4i+2 : 4i] of {b, a}. */
static void prmt(uint32_t out[4], const uint32_t a[4], const uint32_t b[4], uint32_t sel)
{
    for (int i = 0; i < 4; ++i) {
        const int src = (sel >> (4 * i)) & 7;
        out[i] = src < 4 ? a[src] : b[src - 4];
    }
}

static void run_dim(int d)
{
    const int row_bytes = d < 128 ? d : 128, panel_bytes = N * row_bytes, vt_panel_bytes = 128 * d;
    memset(g_written, 0, sizeof g_written);
    for (int key = 0; key < N; ++key) /* 1. V rows as TMA writes them */
        for (int col = 0; col < d; ++col)
            g_v[SM90_VT8_ROW_OFFSET(key, col / 16, row_bytes, panel_bytes) + col % 16] = (uint32_t)(key << 16 | col);

    for (int key0 = 0; key0 < N; key0 += SM90_VT8_UNIT_KEYS) /* 2. every unit */
        for (int chunk = 0; chunk < d / SM90_VT8_UNIT_COLS; ++chunk) {
            int ld_off[LANES], st_off[LANES];
            for (int l = 0; l < LANES; ++l) {
                ld_off[l] = SM90_VT8_ROW_OFFSET(key0 + l, chunk, row_bytes, panel_bytes);
                st_off[l] = SM90_VT8_T_OFFSET(chunk * SM90_VT8_UNIT_COLS + SM90_VT8_ST_COL(l),
                                              key0 + SM90_VT8_ST_KEY(l), vt_panel_bytes);
            }
            for (int m = 0; m < 4; ++m) {
                check_phase("ldmatrix bank groups", ld_off + 8 * m, d);
                check_phase("stmatrix bank groups", st_off + 8 * m, d);
            }
            /* ldmatrix .trans on b16: lane (p, q) gets from matrix m the elements (row 2q, column p)
               and (row 2q + 1, column p), each two bytes */
            uint32_t reg[LANES][4][4];
            for (int l = 0; l < LANES; ++l) {
                const int p = l / 4, q = l % 4;
                for (int m = 0; m < 4; ++m)
                    for (int h = 0; h < 2; ++h)
                        for (int e = 0; e < 2; ++e)
                            reg[l][m][2 * h + e] = g_v[ld_off[8 * m + 2 * q + h] + 2 * p + e];
            }
            /* prmt, then stmatrix: lane (p, q)'s register j goes to row p of matrix j, bytes 4q .. */
            for (int l = 0; l < LANES; ++l) {
                uint32_t w[4][4];
                for (int g = 0; g < 2; ++g) {
                    prmt(w[2 * g], reg[l][2 * g], reg[l][2 * g + 1], SM90_VT8_SEL(l, 0));
                    prmt(w[2 * g + 1], reg[l][2 * g], reg[l][2 * g + 1], SM90_VT8_SEL(l, 1));
                }
                const int p = l / 4, q = l % 4;
                for (int j = 0; j < 4; ++j)
                    for (int i = 0; i < 4; ++i) {
                        const int at = st_off[8 * j + p] + 4 * q + i;
                        g_vt[at] = w[j][i];
                        ++g_written[at];
                    }
            }
        }

    for (int col = 0; col < d; ++col) /* 3. V^T as the wgmma descriptor reads it */
        for (int x = 0; x < N; ++x) {
            const int at = SM90_VT8_T_OFFSET(col, x - x % 16, vt_panel_bytes) + x % 16;
            const uint32_t want = (uint32_t)((x - x % 16 + SM90_VT8_KEY(x % 16)) << 16 | col);
            if (g_written[at] != 1) fail("V^T byte written once", d, col, x, (uint32_t)g_written[at], 1);
            if (g_vt[at] != want) fail("V^T byte", d, col, x, g_vt[at], want);
        }
}

/* 4. fwd_convert_p (FWD_V_ROWS): the accumulator s[4j + 2r + c] of lane t is (row r, key
   8j + 2t + c); byte i of register 2G + r must be the key V^T holds at 16 G + 4t + i. */
static void check_p(void)
{
    for (int t = 0; t < 4; ++t)
        for (int g = 0; g < N / 16; ++g)
            for (int r = 0; r < 2; ++r)
                for (int i = 0; i < 4; ++i) {
                    const int s = SM90_VT8_S_INDEX(g, r, i), j = s / 4;
                    const int row = (s % 4) / 2, key = 8 * j + 2 * t + s % 2;
                    const int want = 16 * g + SM90_VT8_KEY(4 * t + i);
                    if (row != r || key != want) fail("P byte", t, g, 4 * r + i, (uint32_t)(row << 16 | key),
                                                      (uint32_t)(r << 16 | want));
                }
}

int main(void)
{
    const int dims[] = {64, 128, 256};
    for (int i = 0; i < 3; ++i) run_dim(dims[i]);
    check_p();
    printf("in-kernel V transpose and P packing%s\n", g_bad ? ": FAILED" : ": every byte in place, no bank conflict");
    return g_bad != 0;
}
