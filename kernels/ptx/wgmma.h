/*
 * wgmma wrappers: PTX ISA §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
 * Instructions" (sm_90a). All 128 threads of a warpgroup execute each instruction.
 *
 * Protocol (§9.7.15.7): wgmma_fence() before the first wgmma and after any register write to an
 * accumulator or A fragment; issue; wgmma_commit_group(); wgmma_wait_group(N) before reading the
 * accumulators. Accumulator layout (m64nN, f32): d[4j + 2r + c] is row 16*warp + lane/4 + 8r,
 * column 8j + 2*(lane%4) + c.
 *
 * The accumulator count (N/2 registers) is part of the instruction, so each N is its own
 * function; they are stamped out by WGMMA_DEFINE_SS / WGMMA_DEFINE_RS below from per-N lists of
 * register placeholders and operands. Only the shapes the kernels use are provided:
 *   SS (A and B from shared memory, both K-major):     m64nNk16, N in {64..192 step 16}
 *   RS (A from registers, B from shared memory MN-major): m64nNk16, N in {64, 128, 256}
 *   8-bit e4m3 (both operands K-major): SS m64n128k32; RS m64nNk32, N in {64, 128, 256}
 * `scale_d` = 0 overwrites D (D = A*B), 1 accumulates.
 */
#ifndef FLASHC_PTX_WGMMA_H
#define FLASHC_PTX_WGMMA_H

#include <stdint.h>

/* wgmma.fence: orders register accesses before the following wgmma (§9.7.15.7.1). */
static __device__ __forceinline__ void wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/* wgmma.commit_group: closes the group of wgmmas issued since the last commit (§9.7.15.7.2). */
static __device__ __forceinline__ void wgmma_commit_group(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* wgmma.wait_group N: waits until at most N committed groups are pending (§9.7.15.7.3).
   A macro: N is an immediate. */
#define wgmma_wait_group(N) asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory")

/* Keeps the compiler from moving accesses of an accumulator / fragment register across an
   asynchronous wgmma (the register is "used and redefined" here). */
static __device__ __forceinline__ void wgmma_fence_operand_f32(float *r)
{
    asm volatile("" : "+f"(*r)::"memory");
}
static __device__ __forceinline__ void wgmma_fence_operand_b32(uint32_t *r)
{
    asm volatile("" : "+r"(*r)::"memory");
}

/* Shared-memory matrix descriptor (§9.7.15.5.1.2.2), 128-byte swizzle (mode 1, bits 62-63).
   Start address, leading and stride byte offsets are stored >> 4. Tiles are 1024-byte aligned
   so the base offset (bits 49-51) is 0.
   K-major operand: rows of 128 B, `stride` = bytes between 8-row groups, `leading` unused (1).
   MN-major operand: `leading` = bytes between 64-element MN panels, `stride` = bytes between
   8-row K groups. */
#define WGMMA_DESC_SWIZZLE_128B 1ull
static __device__ __forceinline__ uint64_t wgmma_desc_sw128(uint32_t smem_addr, uint32_t leading_bytes,
                                                            uint32_t stride_bytes)
{
    return (uint64_t)((smem_addr & 0x3FFFF) >> 4) | ((uint64_t)((leading_bytes & 0x3FFFF) >> 4) << 16) |
           ((uint64_t)((stride_bytes & 0x3FFFF) >> 4) << 32) | (WGMMA_DESC_SWIZZLE_128B << 62);
}

/* The same with the 64-byte swizzle (mode 2): K-major rows of 64 B (64 8-bit columns), `stride` =
   bytes between 8-row groups (512 when dense); the pattern repeats every 512 B, so tiles are
   512-byte aligned for base offset 0. */
#define WGMMA_DESC_SWIZZLE_64B 2ull
static __device__ __forceinline__ uint64_t wgmma_desc_sw64(uint32_t smem_addr, uint32_t leading_bytes,
                                                           uint32_t stride_bytes)
{
    return (wgmma_desc_sw128(smem_addr, leading_bytes, stride_bytes) & ~(3ull << 62)) | (WGMMA_DESC_SWIZZLE_64B << 62);
}

/* The descriptor of an operand `bytes` further on (a k-step or panel inside the same tile): adds
   bytes >> 4 to the start-address field (bits 0-13) of the low word only. No carry can leave the
   field while the address stays below 256 KB (the shared window of an sm_90 CTA is 228 KB), so
   the 64-bit descriptor is built once per operand tile and each further k-step costs one 32-bit
   add instead of a full rebuild (~6 ALU instructions and an R2UR per wgmma operand). */
static __device__ __forceinline__ uint64_t wgmma_desc_advance(uint64_t desc, uint32_t bytes)
{
    const uint32_t lo = (uint32_t)desc + (bytes >> 4), hi = (uint32_t)(desc >> 32);
    return ((uint64_t)hi << 32) | lo;
}

/* Accumulator operands d[i .. i+7] as asm in/out operands ("+f"). */
#define WGMMA_D8(i) \
    "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), \
    "+f"(d[(i) + 4]), "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])

/* Per N: the N/2 accumulator operands and their placeholders %0 .. %(N/2 - 1). */
#define WGMMA_DOPS_64 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24)
#define WGMMA_DOPS_80 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32)
#define WGMMA_DOPS_96 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40)
#define WGMMA_DOPS_112 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48)
#define WGMMA_DOPS_128 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56)
#define WGMMA_DOPS_144 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56), WGMMA_D8(64)
#define WGMMA_DOPS_160 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56), WGMMA_D8(64), WGMMA_D8(72)
#define WGMMA_DOPS_176 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56), WGMMA_D8(64), WGMMA_D8(72), WGMMA_D8(80)
#define WGMMA_DOPS_192 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56), WGMMA_D8(64), WGMMA_D8(72), WGMMA_D8(80), WGMMA_D8(88)
#define WGMMA_DOPS_256 WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56), WGMMA_D8(64), WGMMA_D8(72), WGMMA_D8(80), WGMMA_D8(88), WGMMA_D8(96), WGMMA_D8(104), WGMMA_D8(112), WGMMA_D8(120)
#define WGMMA_DREGS_64 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define WGMMA_DREGS_80 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39"
#define WGMMA_DREGS_96 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47"
#define WGMMA_DREGS_112 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55"
#define WGMMA_DREGS_128 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define WGMMA_DREGS_144 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71"
#define WGMMA_DREGS_160 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79"
#define WGMMA_DREGS_176 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87"
#define WGMMA_DREGS_192 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95"
#define WGMMA_DREGS_256 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"

/* The two instruction forms, stamped per shape: NAME the function, K the instruction's k, T the
   element type, IMM the immediates after scale-d (scale-a, scale-b, then the transpose bits the
   16-bit forms take; 8-bit forms have none, both operands K-major, §9.7.15.5.1). After the N/2
   accumulators: DA / A0..A3 = the A descriptor or fragment, DB = desc_b, P = scale_d. */
#define WGMMA_DEFINE_SS_FORM(NAME, N, K, T, IMM, DA, DB, P)                                          \
    static __device__ __forceinline__ void NAME(float *d, uint64_t desc_a, uint64_t desc_b, int scale_d) \
    {                                                                                                  \
        asm volatile("{\n"                                                                             \
                     ".reg .pred p;\n"                                                                 \
                     "setp.ne.b32 p, %" #P ", 0;\n"                                                    \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." #T "." #T " "               \
                     "{" WGMMA_DREGS_##N "}, %" #DA ", %" #DB ", p, " IMM ";\n"                        \
                     "}\n"                                                                             \
                     : WGMMA_DOPS_##N                                                                  \
                     : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                        \
    }
#define WGMMA_DEFINE_RS_FORM(NAME, N, K, T, IMM, A0, A1, A2, A3, DB, P)                              \
    static __device__ __forceinline__ void NAME(float *d, const uint32_t *a, uint64_t desc_b, int scale_d) \
    {                                                                                                  \
        asm volatile("{\n"                                                                             \
                     ".reg .pred p;\n"                                                                 \
                     "setp.ne.b32 p, %" #P ", 0;\n"                                                    \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." #T "." #T " "               \
                     "{" WGMMA_DREGS_##N "}, {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #DB          \
                     ", p, " IMM ";\n"                                                                 \
                     "}\n"                                                                             \
                     : WGMMA_DOPS_##N                                                                  \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));         \
    }

/* D[64xN] (+)= A[64x16] * B[16xN]; A and B in shared memory, K-major, element type T (f16|bf16). */
#define WGMMA_DEFINE_SS(N, T, DA, DB, P) \
    WGMMA_DEFINE_SS_FORM(wgmma_m64n##N##k16_f32_##T##_##T##_ss, N, 16, T, "1, 1, 0, 0", DA, DB, P)
/* D[64xN] (+)= A[64x16] * B[16xN]; A in registers (4 x b32, pairs of T), B in shared memory
   MN-major (transpose-B bit set). */
#define WGMMA_DEFINE_RS(N, T, A0, A1, A2, A3, DB, P) \
    WGMMA_DEFINE_RS_FORM(wgmma_m64n##N##k16_f32_##T##_##T##_rs_bmn, N, 16, T, "1, 1, 1", A0, A1, A2, A3, DB, P)
/* 8-bit: D[64xN] (+)= A[64x32] * B[32xN], T = e4m3, both operands K-major. A fragment in registers
   (RS): 4 x b32, byte e of register q is row 16*warp + lane/4 + 8(q&1), k = 16(q>>1) +
   4*(lane%4) + e (not the accumulator layout: see the Hopper kernel's P packing). */
#define WGMMA_DEFINE_SS8(N, T, DA, DB, P) \
    WGMMA_DEFINE_SS_FORM(wgmma_m64n##N##k32_f32_##T##_##T##_ss, N, 32, T, "1, 1", DA, DB, P)
#define WGMMA_DEFINE_RS8(N, T, A0, A1, A2, A3, DB, P) \
    WGMMA_DEFINE_RS_FORM(wgmma_m64n##N##k32_f32_##T##_##T##_rs, N, 32, T, "1, 1", A0, A1, A2, A3, DB, P)

WGMMA_DEFINE_SS(64, bf16, 32, 33, 34)
WGMMA_DEFINE_SS(80, bf16, 40, 41, 42)
WGMMA_DEFINE_SS(96, bf16, 48, 49, 50)
WGMMA_DEFINE_SS(112, bf16, 56, 57, 58)
WGMMA_DEFINE_SS(128, bf16, 64, 65, 66)
WGMMA_DEFINE_SS(144, bf16, 72, 73, 74)
WGMMA_DEFINE_SS(160, bf16, 80, 81, 82)
WGMMA_DEFINE_SS(176, bf16, 88, 89, 90)
WGMMA_DEFINE_SS(192, bf16, 96, 97, 98)
WGMMA_DEFINE_RS(64, bf16, 32, 33, 34, 35, 36, 37)
WGMMA_DEFINE_RS(128, bf16, 64, 65, 66, 67, 68, 69)
WGMMA_DEFINE_RS(256, bf16, 128, 129, 130, 131, 132, 133)
WGMMA_DEFINE_SS(64, f16, 32, 33, 34)
WGMMA_DEFINE_SS(80, f16, 40, 41, 42)
WGMMA_DEFINE_SS(96, f16, 48, 49, 50)
WGMMA_DEFINE_SS(112, f16, 56, 57, 58)
WGMMA_DEFINE_SS(128, f16, 64, 65, 66)
WGMMA_DEFINE_SS(144, f16, 72, 73, 74)
WGMMA_DEFINE_SS(160, f16, 80, 81, 82)
WGMMA_DEFINE_SS(176, f16, 88, 89, 90)
WGMMA_DEFINE_SS(192, f16, 96, 97, 98)
WGMMA_DEFINE_RS(64, f16, 32, 33, 34, 35, 36, 37)
WGMMA_DEFINE_RS(128, f16, 64, 65, 66, 67, 68, 69)
WGMMA_DEFINE_RS(256, f16, 128, 129, 130, 131, 132, 133)

WGMMA_DEFINE_SS8(128, e4m3, 64, 65, 66)
WGMMA_DEFINE_RS8(64, e4m3, 32, 33, 34, 35, 36, 37)
WGMMA_DEFINE_RS8(128, e4m3, 64, 65, 66, 67, 68, 69)
WGMMA_DEFINE_RS8(256, e4m3, 128, 129, 130, 131, 132, 133)

#endif /* FLASHC_PTX_WGMMA_H */
