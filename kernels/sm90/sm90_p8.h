/*
 * The lane exchange that turns the Hopper kernel's score accumulators into the A fragment of the
 * 8-bit P.V wgmma (fwd_kernel.cuh, fwd_convert_p). Plain C macros, shared with the CPU test that
 * replays the exchange for every lane (tests/cpu/test_sm90_p8.c).
 *
 * Layouts (ptx/wgmma.h; PTX ISA §9.7.15.5.1.1): lane t = lane % 4 of a quad holds, per 16 keys G
 * and for its rows g and g+8, keys 2t, 2t+1 of the low 8 (accumulator block 2G) and of the high 8
 * (block 2G+1). The 8-bit A fragment wants keys 4t .. 4t+3 of the 16 in one register per row:
 * lanes 2(t&1) and 2(t&1)+1 hold them, in the low block for t < 2 and the high block for t >= 2.
 *
 * Each lane packs its two e4m3 pairs of one block (row g in bytes 0-1, row g+8 in bytes 2-3) into
 * a word. Two shuffles, each a permutation of the quad, deliver exactly the words asked for:
 *   first:  lane t reads lane SM90_P8_SRC(t) = 2(t&1) + (t>>1), which sends block t&1 of its own
 *   second: lane t reads lane SM90_P8_SRC(t) ^ 1, which sends its other block.
 * For t < 2 the first word holds keys 4t, 4t+1 and the second 4t+2, 4t+3; for t >= 2 the other way
 * round. A byte permute (PTX prmt; selector nibble i picks byte i of the result from the 8 bytes
 * {second : first}) then builds the row-g register and the row-(g+8) register.
 */
#ifndef FLASHC_SM90_P8_H
#define FLASHC_SM90_P8_H

#define SM90_P8_SRC(t) (2 * ((t) & 1) + ((t) >> 1))
#define SM90_P8_FIRST_SENDS_HIGH(t) (((t) & 1) != 0) /* the first shuffle's word: high block? */
#define SM90_P8_SEL_ROW0(t) ((t) < 2 ? 0x5410u : 0x1054u)
#define SM90_P8_SEL_ROW1(t) ((t) < 2 ? 0x7632u : 0x3276u)

#endif /* FLASHC_SM90_P8_H */
