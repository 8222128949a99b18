/*
 * test_util — helpers shared by the CPU and GPU test programs (host side, C11).
 *
 * Everything here works on HOST memory. A GPU test builds its tensors on the host with
 * tu_tensor_alloc*(), fills them, copies tu_tensor.alloc (tu_tensor.bytes bytes, the whole span
 * including padding) to the device, and passes a copy of tu_tensor.view whose data points at the
 * device copy: strides stay valid because view.data == alloc (offset 0). To check results it
 * copies the device buffer back into the host allocation and calls tu_tensor_decode() /
 * tu_tensor_poison_intact().
 *
 *   RNG          tu_seed(), tu_rng_*: xoshiro256** seeded from FLASHC_TEST_SEED or the clock.
 *   Values       tu_dtype_size, tu_encode/tu_decode (one element), tu_fill_* (flat buffers).
 *   Tensors      tu_tensor_alloc (contiguous or padded strides), tu_tensor_alloc_strided,
 *                tu_tensor_fill_*, tu_tensor_decode (logical row-major order), tu_tensor_free.
 *   Poison       tu_poison (NaN bit patterns), tu_tensor_poison_intact (padding untouched).
 *   Compare      tu_compare (max abs / rel error, relative RMS, NaN and out-of-tolerance counts).
 *   Reporting    TEST_CHECK, tu_skip, tu_summary (last line "N passed, N failed[, N skipped]").
 *
 * Element codecs come from src/numeric.h (exact decode, round-to-nearest-even encode).
 */
#ifndef FLASHC_TEST_UTIL_H
#define FLASHC_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "flashc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Random numbers ---------------------------------------------------------------------- */

typedef struct tu_rng {
    uint64_t s[4];
    double spare;   /* Box-Muller's second normal deviate (standard), kept for the next draw */
    int has_spare;
} tu_rng;

/* The run's seed: FLASHC_TEST_SEED (decimal or 0x-hex) if set, else from the clock. The first
   call prints "seed: N (reproduce with FLASHC_TEST_SEED=N)" to stdout; later calls return the
   same value. */
uint64_t tu_seed(void);
void tu_rng_init(tu_rng *r, uint64_t seed);          /* any seed, 0 included */
uint64_t tu_rng_u64(tu_rng *r);
double tu_rng_unit(tu_rng *r);                       /* uniform in [0, 1) */
double tu_rng_uniform(tu_rng *r, double lo, double hi); /* uniform in [lo, hi) */
double tu_rng_normal(tu_rng *r, double mean, double stddev);
int64_t tu_rng_int(tu_rng *r, int64_t lo, int64_t hi); /* uniform integer in [lo, hi] inclusive */
void tu_rng_shuffle_i32(tu_rng *r, int32_t *a, int64_t n);

/* ---- Element values ---------------------------------------------------------------------- */

size_t tu_dtype_size(flashc_dtype dt);              /* bytes per element; 0 if unknown */
const char *tu_dtype_name(flashc_dtype dt);          /* "f32", "f16", "bf16", "e4m3", "int8" */
/* Spacing of the type's values at 1.0 (2^-mantissa_bits); 1 for int8. */
double tu_dtype_eps(flashc_dtype dt);
/* One unit in the last place of the representable value nearest x in dt (subnormals included). */
double tu_dtype_ulp(flashc_dtype dt, double x);
/* Element idx (in elements from base) decoded exactly / encoded with round-to-nearest-even
   (e4m3 saturates to ±448, int8 to [-128, 127]). */
double tu_decode(flashc_dtype dt, const void *base, int64_t idx);
void tu_encode(flashc_dtype dt, void *base, int64_t idx, double v);
/* The value v becomes once stored in dt (encode then decode). */
double tu_round_to(flashc_dtype dt, double v);

/* Flat buffers of n elements. Values are drawn in double, then rounded to dt. */
void tu_fill_uniform(tu_rng *r, void *buf, flashc_dtype dt, int64_t n, double lo, double hi);
void tu_fill_normal(tu_rng *r, void *buf, flashc_dtype dt, int64_t n, double mean, double stddev);
/* Decode n elements of buf into out. */
void tu_decode_buffer(flashc_dtype dt, const void *buf, int64_t n, double *out);

/* Poison: a quiet-NaN bit pattern in every element (f32 0x7fdadbad, f16 0x7e5a, bf16 0x7fda,
   e4m3 0x7f); int8 has no NaN and gets 0x5a (90). Unwritten float elements decode as NaN. */
void tu_poison(void *buf, flashc_dtype dt, int64_t n);
int tu_is_poison(flashc_dtype dt, const void *base, int64_t idx); /* exact poison bit pattern */

/* ---- Host tensors ------------------------------------------------------------------------ */

typedef struct tu_tensor {
    flashc_tensor view; /* what the API gets; view.data == alloc */
    void *alloc;        /* host allocation, the whole span (NULL after free / failure) */
    size_t bytes;       /* bytes of alloc */
    int64_t span;       /* elements of alloc */
} tu_tensor;

/*
 * Allocate a tensor of `ndim` extents. Strides are contiguous plus padding: stride[ndim-1] = 1 and
 * stride[i] = stride[i+1] * shape[i+1] + pad[i] (pad may be NULL = all 0; pad[ndim-1] ignored), so
 * pad[ndim-2] = 8 leaves 8 elements between rows. The whole allocation is poisoned first, so
 * padding keeps the poison pattern. Returns 0 on success, -1 on allocation failure.
 */
int tu_tensor_alloc(tu_tensor *t, flashc_dtype dt, int32_t ndim, const int64_t *shape,
                    const int64_t *pad);
/* Same with explicit strides (elements, >= 0; 0 broadcasts). The span covers the largest offset. */
int tu_tensor_alloc_strided(tu_tensor *t, flashc_dtype dt, int32_t ndim, const int64_t *shape,
                            const int64_t *stride);
void tu_tensor_free(tu_tensor *t);
int64_t tu_numel(const flashc_tensor *v);            /* product of the extents */
/* Offset in elements of the logical element with row-major index `linear`. */
int64_t tu_offset(const flashc_tensor *v, int64_t linear);
/* The same walk without divisions (the fills and decodes of the GPU suite's inputs spent a fifth of
   its CPU time in tu_offset): memset the walk to 0, visit w.off, then tu_walk_next(&w, v). */
typedef struct tu_walk {
    int64_t idx[FLASHC_MAX_DIMS];
    int64_t off;
} tu_walk;
void tu_walk_next(tu_walk *w, const flashc_tensor *v);
/* Fill every logical element (padding untouched). With broadcast strides the last write wins. */
void tu_tensor_fill_uniform(tu_rng *r, tu_tensor *t, double lo, double hi);
void tu_tensor_fill_normal(tu_rng *r, tu_tensor *t, double mean, double stddev);
/* Decode the logical elements of a view (host data) into out[numel], row-major. */
void tu_tensor_decode(const flashc_tensor *v, double *out);
/* Number of elements of the allocation that are NOT logical elements of the view and no
   longer hold the poison pattern (0 = nothing was written outside the view). */
int64_t tu_tensor_poison_intact(const tu_tensor *t);

/* ---- Comparison -------------------------------------------------------------------------- */

typedef struct tu_cmp {
    int64_t n;          /* elements compared */
    int64_t n_nan;      /* got is NaN (poison left = unwritten, or a NaN produced) where want is not */
    int64_t n_bad;      /* outside tolerance (NaNs included) */
    double max_abs;     /* max |got - want| over finite pairs */
    double max_rel;     /* max |got - want| / |want| over finite pairs with want != 0 */
    double rel_rms;     /* ||got - want||_2 / ||want||_2 over finite pairs (0 if ||want|| = 0) */
    int64_t worst;      /* index of the largest violation (or first NaN), -1 if none */
    double worst_got, worst_want;
} tu_cmp;

/*
 * Element i passes when |got - want| <= atol + rtol * |want|, or both are the same infinity, or
 * (only) both are NaN. `ulps` > 0 additionally allows `ulps` units in the last place of ulp_dtype
 * at want (tu_dtype_ulp), for outputs rounded to a narrow type; pass 0 to disable.
 */
tu_cmp tu_compare(const double *got, const double *want, int64_t n, double atol, double rtol,
                  double ulps, flashc_dtype ulp_dtype);
/* One line: "n=.. bad=.. nan=.. max_abs=.. max_rel=.. rel_rms=.. worst[i]: got .. want .." */
void tu_cmp_print(const char *label, const tu_cmp *c);

/* ---- Reporting --------------------------------------------------------------------------- */

/* Counts a pass or a failure; a failure prints "FAIL file:line: expr: message". Returns cond.
   Set FLASHC_TEST_VERBOSE=1 to print passes too. */
#define TEST_CHECK(cond, ...) tu_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
int tu_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
void tu_skip(const char *fmt, ...) /* counts one skipped case and prints "SKIP: message" */
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
int tu_verbose(void);
/* Integer from the environment (e.g. sizes or case counts), or `fallback` when unset/empty. */
long tu_env_int(const char *name, long fallback);
int tu_failures(void);
/* Prints "N passed, N failed" (", N skipped" when any) as the last line; returns the exit code:
   1 if any failed, 77 if nothing passed and something was skipped, else 0. */
int tu_summary(void);

#ifdef __cplusplus
}
#endif

#endif /* FLASHC_TEST_UTIL_H */
