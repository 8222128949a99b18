/*
 * The in-kernel transpose of 8-bit V (fwd_kernel.cuh, FWD_V_ROWS): V arrives by TMA in K's layout
 * (a row per key) and is rewritten as V^T (a row per head-dim column, keys innermost), which the
 * 8-bit P.V wgmma needs (8-bit operands must be K-major). Plain C macros, shared with the CPU test
 * that replays the transpose and the P packing for every lane (tests/cpu/test_sm90_vt8.c).
 *
 * Key order. Inside every 16 keys the V^T columns hold the keys in the order
 *   position 4t + i  <->  key SM90_VT8_KEY(4t + i) = 8 (i >> 1) + 2t + (i & 1),   t, i in 0..3,
 * i.e. the keys a lane t of a quad holds in its score accumulators (2t, 2t+1 of the low 8 and of
 * the high 8; PTX ISA §9.7.15.5.1.1). The 8-bit A fragment wants positions 4t .. 4t+3 of a row in
 * lane t's register, so every lane packs its own four scores: P needs no lane exchange (the
 * pre-transposed V^T path of sm90_p8.h needs two shuffles per 8 bytes instead). P.V sums over all
 * keys, so the order inside the sum does not change O.
 *
 * One unit of work: 32 keys x 16 columns, one ldmatrix.x4.trans, two byte permutes per 16 keys,
 * one stmatrix.x4 (PTX ISA §9.7.14.5.15, §9.7.14.5.16, on b16 elements, i.e. byte pairs):
 *   ldmatrix: lane l addresses key k0 + l (matrix l / 8 = keys 8 (l / 8) ..) at the 16 columns.
 *     Transposed, lane l (p = l / 4, q = l % 4) receives from matrix m the word
 *       bytes {key 8m+2q: col 2p, col 2p+1, key 8m+2q+1: col 2p, col 2p+1}.
 *   permute: for keys 16g .. 16g+15 (matrices 2g, 2g+1 = words lo, hi) the word of column 2p is
 *     bytes {lo.0, lo.2, hi.0, hi.2} (selector 0x6420) and of column 2p+1 {lo.1, lo.3, hi.1, hi.3}
 *     (0x7531): positions 4q .. 4q+3 of that column's V^T row, in the order above.
 *   stmatrix: matrix j = 2g + h (g: 16-key group, h: which of the lane's two columns) has row p =
 *     V^T row (column) 2p + (h ^ b), b = (p >> 2) & 1. Lane p gives matrix 2g + h the word of
 *     column 2p + (h ^ b); lane l addresses row l % 8 of matrix l / 8. The b flip sends the 8 rows
 *     of one matrix to 8 different rows mod 8, i.e. 8 different 16-byte chunks of the 128-byte
 *     swizzle: no bank conflicts (plain even / odd rows would hit 4 chunks twice each).
 */
#ifndef FLASHC_SM90_VT8_H
#define FLASHC_SM90_VT8_H

#define SM90_VT8_UNIT_KEYS 32 /* keys of one unit (4 ldmatrix matrices of 8 keys) */
#define SM90_VT8_UNIT_COLS 16 /* head-dim columns of one unit (one 16-byte chunk of a V row) */

/* The key at V^T position `pos` of its 16-key group (see above). */
#define SM90_VT8_KEY(pos) (8 * (((pos) & 3) >> 1) + 2 * (((pos) & 15) >> 2) + ((pos) & 1))

/* Lane l's permute selector for matrix h (0 or 1) of a 16-key group: column 2p + (h ^ b). */
#define SM90_VT8_FLIP(l) ((((l) >> 2) >> 2) & 1)
#define SM90_VT8_SEL(l, h) (((h) ^ SM90_VT8_FLIP(l)) ? 0x7531u : 0x6420u)

/* stmatrix address of lane l: V^T row (column offset inside the unit) and key offset inside the unit. */
#define SM90_VT8_ST_COL(l) (2 * ((l) % 8) + ((((l) / 8) & 1) ^ ((((l) % 8) >> 2) & 1)))
#define SM90_VT8_ST_KEY(l) (16 * ((l) / 16))

/* Byte offset of the 16 columns `chunk` (counting 16-byte chunks across the row) of V row `key` in
   a stage of V rows: panels of `row_bytes`-byte rows (128, or 64 for 8-bit d64), `panel_bytes`
   apart, swizzled as TMA writes them. The 128-byte swizzle moves chunk c of row r to c ^ (r % 8),
   the 64-byte one to c ^ ((r / 2) % 4): both XOR offset bits 4.. with bits 7.. */
#define SM90_VT8_ROW_OFFSET(key, chunk, row_bytes, panel_bytes)                                           \
    (((chunk) / ((row_bytes) / 16)) * (panel_bytes) + (key) * (row_bytes) +                                \
     ((((chunk) % ((row_bytes) / 16)) ^ (((key) * (row_bytes) / 128) % 8)) % ((row_bytes) / 16)) * 16)

/* Byte offset of V^T positions key_pos .. key_pos + 15 (key_pos a multiple of 16) of V^T row `col`:
   panels of [D rows x 128 keys] (`panel_bytes` = 128 D), 128-byte swizzle, as TMA writes a
   pre-transposed V^T and the P.V wgmma descriptor reads it. */
#define SM90_VT8_T_OFFSET(col, key_pos, panel_bytes)                                                      \
    (((key_pos) / 128) * (panel_bytes) + (col) * 128 + (((((key_pos) % 128) / 16) ^ ((col) % 8)) * 16))

/* P against this V^T: byte i of lane t's A-fragment register for row r (0: g, 1: g + 8) of the
   16-key group G is its score s[SM90_VT8_S_INDEX(G, r, i)] (accumulator s[4j + 2r + c] = key
   8j + 2t + c), i.e. key 16G + SM90_VT8_KEY(4t + i). */
#define SM90_VT8_S_INDEX(G, r, i) (8 * (G) + 4 * ((i) >> 1) + 2 * (r) + ((i) & 1))

#endif /* FLASHC_SM90_VT8_H */
