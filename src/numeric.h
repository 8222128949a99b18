/*
 * numeric.h — exact scalar codecs for the element types of flashc, host side.
 *
 * Static inline C, usable from C11 and from CUDA host code (no CUDA header needed).
 *
 *   decode  f16 / bf16 / fp8 e4m3 / int8  ->  float or double    exact (every value fits a float)
 *   encode  double or float  ->  f16 / bf16 / e4m3                round to nearest, ties to even
 *
 * Encoding rules:
 *   f16, bf16 : overflow goes to ±inf (IEEE), NaN stays NaN (quiet), the sign of zero is kept.
 *   e4m3      : OCP e4m3fn (bias 7, subnormals, no infinities, S.1111.111 is NaN, max 448);
 *               finite values and ±inf beyond ±448 saturate to ±448 (as cvt.rn.satfinite);
 *               NaN stays NaN (0x7f / 0xff).
 * Rounding does not depend on the caller's floating-point rounding mode: ties are resolved
 * explicitly, so the CPU backend and the tests round identically everywhere.
 */
#ifndef FLASHC_NUMERIC_H
#define FLASHC_NUMERIC_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Format constants -------------------------------------------------------------------- */
#define FLASHC_F16_MANT_BITS 10
#define FLASHC_F16_EXP_BIAS 15
#define FLASHC_F16_INF 0x7c00u
#define FLASHC_F16_QNAN 0x7e00u
#define FLASHC_BF16_MANT_BITS 7
#define FLASHC_BF16_EXP_BIAS 127
#define FLASHC_BF16_INF 0x7f80u
#define FLASHC_BF16_QNAN 0x7fc0u
#define FLASHC_E4M3_MANT_BITS 3
#define FLASHC_E4M3_EXP_BIAS 7
#define FLASHC_E4M3_NAN 0x7fu    /* S.1111.111 */
#define FLASHC_E4M3_MAXNORM 0x7eu /* 448 = 1.75 * 2^8 */
#define FLASHC_E4M3_MAX 448.0

/* Float bit-pattern pieces used by the decoders. */
#define FLASHC_F32_SIGN 0x80000000u
#define FLASHC_F32_EXP_BIAS 127
#define FLASHC_F32_MANT_BITS 23

static inline float flashc_bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- Decoders ---------------------------------------------------------------------------- */

static inline float flashc_f16_to_float(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> FLASHC_F16_MANT_BITS) & 0x1fu;
    uint32_t mant = (uint32_t)h & 0x3ffu;
    if (exp == 0x1fu) /* inf or NaN; the payload keeps a NaN a NaN */
        return flashc_bits_to_float(sign | 0x7f800000u | (mant << (FLASHC_F32_MANT_BITS - FLASHC_F16_MANT_BITS)));
    if (exp == 0) { /* zero or subnormal: mant * 2^-24, exact in float */
        float v = (float)mant * 0x1p-24f;
        return sign ? -v : v;
    }
    return flashc_bits_to_float(sign | ((exp - FLASHC_F16_EXP_BIAS + FLASHC_F32_EXP_BIAS) << FLASHC_F32_MANT_BITS) |
                                (mant << (FLASHC_F32_MANT_BITS - FLASHC_F16_MANT_BITS)));
}

/* bf16 is the upper half of a float. */
static inline float flashc_bf16_to_float(uint16_t h) { return flashc_bits_to_float((uint32_t)h << 16); }

static inline float flashc_e4m3_to_float(uint8_t x)
{
    uint32_t sign = ((uint32_t)x & 0x80u) << 24;
    uint32_t exp = ((uint32_t)x >> FLASHC_E4M3_MANT_BITS) & 0xfu;
    uint32_t mant = (uint32_t)x & 0x7u;
    if ((x & 0x7fu) == FLASHC_E4M3_NAN) return flashc_bits_to_float(sign | 0x7fc00000u);
    if (exp == 0) { /* zero or subnormal: mant * 2^-9 */
        float v = (float)mant * 0x1p-9f;
        return sign ? -v : v;
    }
    return flashc_bits_to_float(sign | ((exp - FLASHC_E4M3_EXP_BIAS + FLASHC_F32_EXP_BIAS) << FLASHC_F32_MANT_BITS) |
                                (mant << (FLASHC_F32_MANT_BITS - FLASHC_E4M3_MANT_BITS)));
}

static inline float flashc_int8_to_float(int8_t x) { return (float)x; }

static inline double flashc_f16_to_double(uint16_t h) { return (double)flashc_f16_to_float(h); }
static inline double flashc_bf16_to_double(uint16_t h) { return (double)flashc_bf16_to_float(h); }
static inline double flashc_e4m3_to_double(uint8_t x) { return (double)flashc_e4m3_to_float(x); }
static inline double flashc_int8_to_double(int8_t x) { return (double)x; }

/* ---- Encoders ---------------------------------------------------------------------------- */

/* Round a non-negative integer-range double to the nearest integer, ties to even, independent of
   the rounding mode. y - floor(y) is exact for |y| < 2^52. */
static inline double flashc__round_half_even(double y)
{
    double q = floor(y);
    double r = y - q;
    if (r > 0.5 || (r == 0.5 && fmod(q, 2.0) != 0.0)) q += 1.0;
    return q;
}

/*
 * Magnitude bits (exponent << mant_bits | mantissa) of the finite, non-negative `a` rounded to a
 * binary format with `mant_bits` stored mantissa bits and exponent bias `bias` (subnormals
 * included). Overflow is left to the caller: the result may exceed the largest finite pattern.
 * Why one formula covers all cases: with E clamped to the minimum normal exponent, the rounded
 * significand q lies in [0, 2^(m+1)] and ((E + bias - 1) << m) + q carries naturally from
 * subnormal to normal and from one binade to the next.
 */
static inline uint32_t flashc__round_magnitude(double a, int mant_bits, int bias)
{
    if (a == 0.0) return 0;
    const int emin = 1 - bias;
    int ex; /* even for a = DBL_MAX the field fits: (1023 + bias - 1) << mant_bits < 2^32 */
    (void)frexp(a, &ex); /* a = f * 2^ex, f in [0.5, 1) */
    int e = ex - 1;
    if (e < emin) e = emin;
    double q = flashc__round_half_even(ldexp(a, mant_bits - e));
    return ((uint32_t)(e + bias - 1) << mant_bits) + (uint32_t)q;
}

static inline uint16_t flashc_double_to_f16(double x)
{
    uint16_t sign = signbit(x) ? 0x8000u : 0;
    if (isnan(x)) return (uint16_t)(sign | FLASHC_F16_QNAN);
    if (isinf(x)) return (uint16_t)(sign | FLASHC_F16_INF);
    uint32_t m = flashc__round_magnitude(fabs(x), FLASHC_F16_MANT_BITS, FLASHC_F16_EXP_BIAS);
    if (m >= FLASHC_F16_INF) m = FLASHC_F16_INF;
    return (uint16_t)(sign | m);
}

static inline uint16_t flashc_double_to_bf16(double x)
{
    uint16_t sign = signbit(x) ? 0x8000u : 0;
    if (isnan(x)) return (uint16_t)(sign | FLASHC_BF16_QNAN);
    if (isinf(x)) return (uint16_t)(sign | FLASHC_BF16_INF);
    uint32_t m = flashc__round_magnitude(fabs(x), FLASHC_BF16_MANT_BITS, FLASHC_BF16_EXP_BIAS);
    if (m >= FLASHC_BF16_INF) m = FLASHC_BF16_INF;
    return (uint16_t)(sign | m);
}

static inline uint8_t flashc_double_to_e4m3(double x)
{
    uint8_t sign = signbit(x) ? 0x80u : 0;
    if (isnan(x)) return (uint8_t)(sign | FLASHC_E4M3_NAN);
    if (isinf(x)) return (uint8_t)(sign | FLASHC_E4M3_MAXNORM);
    uint32_t m = flashc__round_magnitude(fabs(x), FLASHC_E4M3_MANT_BITS, FLASHC_E4M3_EXP_BIAS);
    if (m > FLASHC_E4M3_MAXNORM) m = FLASHC_E4M3_MAXNORM; /* saturate: no infinities in e4m3fn */
    return (uint8_t)(sign | m);
}

/* A float converts to double exactly, so these round once, like the hardware conversions. */
static inline uint16_t flashc_float_to_f16(float x) { return flashc_double_to_f16((double)x); }
static inline uint16_t flashc_float_to_bf16(float x) { return flashc_double_to_bf16((double)x); }
static inline uint8_t flashc_float_to_e4m3(float x) { return flashc_double_to_e4m3((double)x); }

/* int8 for test inputs: round half even, saturate to [-128, 127]; NaN -> 0. */
static inline int8_t flashc_double_to_int8(double x)
{
    if (isnan(x)) return 0;
    if (x >= 127.0) return 127;
    if (x <= -128.0) return -128;
    double q = flashc__round_half_even(fabs(x));
    return (int8_t)(x < 0 ? -q : q);
}

#ifdef __cplusplus
}
#endif

#endif /* FLASHC_NUMERIC_H */
