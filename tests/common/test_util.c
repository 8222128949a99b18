/* test_util — see test_util.h. Host C11. */
#include "test_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numeric.h"

/* ---- Random numbers ---------------------------------------------------------------------- */

#define TU_SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull
#define TU_DOUBLE_MANT_BITS 53

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += TU_SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int g_seed_known;
static uint64_t g_seed;

uint64_t tu_seed(void)
{
    if (g_seed_known) return g_seed;
    const char *env = getenv("FLASHC_TEST_SEED");
    if (env && *env) {
        g_seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        uint64_t mix = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
        g_seed = splitmix64(&mix) % 1000000000ull; /* short enough to type back */
    }
    g_seed_known = 1;
    printf("seed: %" PRIu64 " (reproduce with FLASHC_TEST_SEED=%" PRIu64 ")\n", g_seed, g_seed);
    fflush(stdout);
    return g_seed;
}

void tu_rng_init(tu_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; ++i) r->s[i] = splitmix64(&x);
    r->spare = 0.0;
    r->has_spare = 0;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman & Vigna). */
uint64_t tu_rng_u64(tu_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double tu_rng_unit(tu_rng *r)
{
    return (double)(tu_rng_u64(r) >> (64 - TU_DOUBLE_MANT_BITS)) * 0x1p-53;
}

double tu_rng_uniform(tu_rng *r, double lo, double hi) { return lo + (hi - lo) * tu_rng_unit(r); }

double tu_rng_normal(tu_rng *r, double mean, double stddev)
{
    /* Box-Muller, both deviates of a pair used (the GPU suite's fills spent a fifth of their time
       in log and cos); 1 - unit is in (0, 1], so the log is finite. */
    const double two_pi = 6.283185307179586476925;
    if (r->has_spare) {
        r->has_spare = 0;
        return mean + stddev * r->spare;
    }
    double u1 = 1.0 - tu_rng_unit(r), u2 = tu_rng_unit(r);
    const double radius = sqrt(-2.0 * log(u1));
    r->spare = radius * sin(two_pi * u2);
    r->has_spare = 1;
    return mean + stddev * radius * cos(two_pi * u2);
}

int64_t tu_rng_int(tu_rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo) return lo;
    uint64_t range = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(tu_rng_u64(r) % range); /* bias is negligible for test ranges */
}

void tu_rng_shuffle_i32(tu_rng *r, int32_t *a, int64_t n)
{
    for (int64_t i = n - 1; i > 0; --i) {
        int64_t j = tu_rng_int(r, 0, i);
        int32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- Element values ---------------------------------------------------------------------- */

size_t tu_dtype_size(flashc_dtype dt)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return 4;
    case FLASHC_DTYPE_F16: return 2;
    case FLASHC_DTYPE_BF16: return 2;
    case FLASHC_DTYPE_FP8_E4M3: return 1;
    case FLASHC_DTYPE_INT8: return 1;
    }
    return 0;
}

const char *tu_dtype_name(flashc_dtype dt)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return "f32";
    case FLASHC_DTYPE_F16: return "f16";
    case FLASHC_DTYPE_BF16: return "bf16";
    case FLASHC_DTYPE_FP8_E4M3: return "e4m3";
    case FLASHC_DTYPE_INT8: return "int8";
    }
    return "?";
}

static int mant_bits(flashc_dtype dt)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return 23;
    case FLASHC_DTYPE_F16: return FLASHC_F16_MANT_BITS;
    case FLASHC_DTYPE_BF16: return FLASHC_BF16_MANT_BITS;
    case FLASHC_DTYPE_FP8_E4M3: return FLASHC_E4M3_MANT_BITS;
    case FLASHC_DTYPE_INT8: return 0;
    }
    return 0;
}

/* Smallest normal exponent. */
static int min_exp(flashc_dtype dt)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return -126;
    case FLASHC_DTYPE_F16: return 1 - FLASHC_F16_EXP_BIAS;
    case FLASHC_DTYPE_BF16: return 1 - FLASHC_BF16_EXP_BIAS;
    case FLASHC_DTYPE_FP8_E4M3: return 1 - FLASHC_E4M3_EXP_BIAS;
    case FLASHC_DTYPE_INT8: return 0;
    }
    return 0;
}

double tu_dtype_eps(flashc_dtype dt) { return ldexp(1.0, -mant_bits(dt)); }

double tu_dtype_ulp(flashc_dtype dt, double x)
{
    if (dt == FLASHC_DTYPE_INT8) return 1.0;
    double a = fabs(tu_round_to(dt, x));
    if (!isfinite(a)) a = fabs(x);
    int e = min_exp(dt);
    if (a > 0 && isfinite(a)) {
        int ex;
        (void)frexp(a, &ex);
        if (ex - 1 > e) e = ex - 1;
    }
    return ldexp(1.0, e - mant_bits(dt));
}

double tu_decode(flashc_dtype dt, const void *base, int64_t idx)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return (double)((const float *)base)[idx];
    case FLASHC_DTYPE_F16: return flashc_f16_to_double(((const uint16_t *)base)[idx]);
    case FLASHC_DTYPE_BF16: return flashc_bf16_to_double(((const uint16_t *)base)[idx]);
    case FLASHC_DTYPE_FP8_E4M3: return flashc_e4m3_to_double(((const uint8_t *)base)[idx]);
    case FLASHC_DTYPE_INT8: return flashc_int8_to_double(((const int8_t *)base)[idx]);
    }
    return NAN;
}

void tu_encode(flashc_dtype dt, void *base, int64_t idx, double v)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: ((float *)base)[idx] = (float)v; break;
    case FLASHC_DTYPE_F16: ((uint16_t *)base)[idx] = flashc_double_to_f16(v); break;
    case FLASHC_DTYPE_BF16: ((uint16_t *)base)[idx] = flashc_double_to_bf16(v); break;
    case FLASHC_DTYPE_FP8_E4M3: ((uint8_t *)base)[idx] = flashc_double_to_e4m3(v); break;
    case FLASHC_DTYPE_INT8: ((int8_t *)base)[idx] = flashc_double_to_int8(v); break;
    }
}

double tu_round_to(flashc_dtype dt, double v)
{
    unsigned char tmp[8];
    tu_encode(dt, tmp, 0, v);
    return tu_decode(dt, tmp, 0);
}

void tu_fill_uniform(tu_rng *r, void *buf, flashc_dtype dt, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; ++i) tu_encode(dt, buf, i, tu_rng_uniform(r, lo, hi));
}

void tu_fill_normal(tu_rng *r, void *buf, flashc_dtype dt, int64_t n, double mean, double stddev)
{
    for (int64_t i = 0; i < n; ++i) tu_encode(dt, buf, i, tu_rng_normal(r, mean, stddev));
}

void tu_decode_buffer(flashc_dtype dt, const void *buf, int64_t n, double *out)
{
    for (int64_t i = 0; i < n; ++i) out[i] = tu_decode(dt, buf, i);
}

/* ---- Poison ------------------------------------------------------------------------------ */

#define TU_POISON_F32 0x7fdadbadu
#define TU_POISON_F16 0x7e5au
#define TU_POISON_BF16 0x7fdau
#define TU_POISON_E4M3 0x7fu
#define TU_POISON_INT8 0x5a

void tu_poison(void *buf, flashc_dtype dt, int64_t n)
{
    switch (dt) {
    case FLASHC_DTYPE_F32:
        for (int64_t i = 0; i < n; ++i) ((uint32_t *)buf)[i] = TU_POISON_F32;
        break;
    case FLASHC_DTYPE_F16:
        for (int64_t i = 0; i < n; ++i) ((uint16_t *)buf)[i] = TU_POISON_F16;
        break;
    case FLASHC_DTYPE_BF16:
        for (int64_t i = 0; i < n; ++i) ((uint16_t *)buf)[i] = TU_POISON_BF16;
        break;
    case FLASHC_DTYPE_FP8_E4M3: memset(buf, TU_POISON_E4M3, (size_t)n); break;
    case FLASHC_DTYPE_INT8: memset(buf, TU_POISON_INT8, (size_t)n); break;
    }
}

int tu_is_poison(flashc_dtype dt, const void *base, int64_t idx)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return ((const uint32_t *)base)[idx] == TU_POISON_F32;
    case FLASHC_DTYPE_F16: return ((const uint16_t *)base)[idx] == TU_POISON_F16;
    case FLASHC_DTYPE_BF16: return ((const uint16_t *)base)[idx] == TU_POISON_BF16;
    case FLASHC_DTYPE_FP8_E4M3: return ((const uint8_t *)base)[idx] == TU_POISON_E4M3;
    case FLASHC_DTYPE_INT8: return ((const int8_t *)base)[idx] == TU_POISON_INT8;
    }
    return 0;
}

/* ---- Host tensors ------------------------------------------------------------------------ */

#define TU_ALIGN 64u

int tu_tensor_alloc_strided(tu_tensor *t, flashc_dtype dt, int32_t ndim, const int64_t *shape,
                            const int64_t *stride)
{
    memset(t, 0, sizeof *t);
    t->view.dtype = dt;
    t->view.ndim = ndim;
    int64_t span = 1, any_empty = 0;
    for (int i = 0; i < ndim; ++i) {
        t->view.shape[i] = shape[i];
        t->view.stride[i] = stride[i];
        if (shape[i] <= 0) any_empty = 1;
        else span += (shape[i] - 1) * stride[i];
    }
    if (any_empty) span = 1; /* keep a valid, non-NULL pointer for empty tensors */
    size_t esize = tu_dtype_size(dt);
    /* 16-byte aligned base and a size rounded up to TU_ALIGN: GPU paths want aligned pointers
       and whole 16-byte copies. aligned_alloc needs the size to be a multiple of the alignment. */
    size_t bytes = ((size_t)span * esize + (TU_ALIGN - 1)) & ~(size_t)(TU_ALIGN - 1);
    void *mem = aligned_alloc(TU_ALIGN, bytes);
    if (!mem) return -1;
    t->alloc = mem;
    t->bytes = bytes;
    t->span = (int64_t)(bytes / esize);
    t->view.data = mem;
    tu_poison(mem, dt, t->span);
    return 0;
}

int tu_tensor_alloc(tu_tensor *t, flashc_dtype dt, int32_t ndim, const int64_t *shape,
                    const int64_t *pad)
{
    int64_t stride[FLASHC_MAX_DIMS] = {0};
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; --i) {
        stride[i] = s + (i < ndim - 1 && pad ? pad[i] : 0);
        s = stride[i] * (shape[i] > 0 ? shape[i] : 1);
    }
    return tu_tensor_alloc_strided(t, dt, ndim, shape, stride);
}

void tu_tensor_free(tu_tensor *t)
{
    free(t->alloc);
    memset(t, 0, sizeof *t);
}

int64_t tu_numel(const flashc_tensor *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->ndim; ++i) n *= v->shape[i] > 0 ? v->shape[i] : 0;
    return n;
}

int64_t tu_offset(const flashc_tensor *v, int64_t linear)
{
    int64_t off = 0;
    for (int i = v->ndim - 1; i >= 0; --i) {
        int64_t ext = v->shape[i];
        off += (linear % ext) * v->stride[i];
        linear /= ext;
    }
    return off;
}

void tu_walk_next(tu_walk *w, const flashc_tensor *v)
{
    for (int i = v->ndim - 1; i >= 0; --i) {
        w->off += v->stride[i];
        if (++w->idx[i] < v->shape[i]) return;
        w->off -= v->stride[i] * v->shape[i];
        w->idx[i] = 0;
    }
}

void tu_tensor_fill_uniform(tu_rng *r, tu_tensor *t, double lo, double hi)
{
    int64_t n = tu_numel(&t->view);
    tu_walk w;
    memset(&w, 0, sizeof w);
    for (int64_t i = 0; i < n; ++i, tu_walk_next(&w, &t->view))
        tu_encode(t->view.dtype, t->view.data, w.off, tu_rng_uniform(r, lo, hi));
}

void tu_tensor_fill_normal(tu_rng *r, tu_tensor *t, double mean, double stddev)
{
    int64_t n = tu_numel(&t->view);
    tu_walk w;
    memset(&w, 0, sizeof w);
    for (int64_t i = 0; i < n; ++i, tu_walk_next(&w, &t->view))
        tu_encode(t->view.dtype, t->view.data, w.off, tu_rng_normal(r, mean, stddev));
}

void tu_tensor_decode(const flashc_tensor *v, double *out)
{
    int64_t n = tu_numel(v);
    tu_walk w;
    memset(&w, 0, sizeof w);
    for (int64_t i = 0; i < n; ++i, tu_walk_next(&w, v)) out[i] = tu_decode(v->dtype, v->data, w.off);
}

int64_t tu_tensor_poison_intact(const tu_tensor *t)
{
    if (!t->alloc) return 0;
    unsigned char *logical = calloc((size_t)t->span, 1);
    if (!logical) return -1;
    int64_t n = tu_numel(&t->view);
    tu_walk w;
    memset(&w, 0, sizeof w);
    for (int64_t i = 0; i < n; ++i, tu_walk_next(&w, &t->view)) logical[w.off] = 1;
    int64_t changed = 0;
    for (int64_t i = 0; i < t->span; ++i)
        if (!logical[i] && !tu_is_poison(t->view.dtype, t->alloc, i)) ++changed;
    free(logical);
    return changed;
}

/* ---- Comparison -------------------------------------------------------------------------- */

tu_cmp tu_compare(const double *got, const double *want, int64_t n, double atol, double rtol,
                  double ulps, flashc_dtype ulp_dtype)
{
    tu_cmp c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.worst = -1;
    double worst_excess = -1.0, err2 = 0.0, ref2 = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double g = got[i], w = want[i];
        if (isnan(w) || isnan(g)) {
            if (isnan(w) && isnan(g)) continue;
            if (isnan(g)) ++c.n_nan;
            ++c.n_bad;
            if (worst_excess < INFINITY) {
                worst_excess = INFINITY;
                c.worst = i;
                c.worst_got = g;
                c.worst_want = w;
            }
            continue;
        }
        if (isinf(w) || isinf(g)) {
            if (g == w) continue;
            ++c.n_bad;
            if (worst_excess < INFINITY) {
                worst_excess = INFINITY;
                c.worst = i;
                c.worst_got = g;
                c.worst_want = w;
            }
            continue;
        }
        double diff = fabs(g - w);
        err2 += diff * diff;
        ref2 += w * w;
        if (diff > c.max_abs) c.max_abs = diff;
        if (w != 0.0 && diff / fabs(w) > c.max_rel) c.max_rel = diff / fabs(w);
        double tol = atol + rtol * fabs(w);
        if (ulps > 0) tol += ulps * tu_dtype_ulp(ulp_dtype, w);
        if (diff > tol) {
            ++c.n_bad;
            if (diff - tol > worst_excess) {
                worst_excess = diff - tol;
                c.worst = i;
                c.worst_got = g;
                c.worst_want = w;
            }
        }
    }
    c.rel_rms = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    return c;
}

void tu_cmp_print(const char *label, const tu_cmp *c)
{
    printf("%s: n=%" PRId64 " bad=%" PRId64 " nan=%" PRId64 " max_abs=%.3g max_rel=%.3g rel_rms=%.3g",
           label ? label : "", c->n, c->n_bad, c->n_nan, c->max_abs, c->max_rel, c->rel_rms);
    if (c->worst >= 0)
        printf(" worst[%" PRId64 "]: got %.9g want %.9g", c->worst, c->worst_got, c->worst_want);
    printf("\n");
}

/* ---- Reporting --------------------------------------------------------------------------- */

static int g_passed, g_failed, g_skipped;

int tu_verbose(void)
{
    static int known, verbose;
    if (!known) {
        const char *env = getenv("FLASHC_TEST_VERBOSE");
        verbose = env && *env && strcmp(env, "0") != 0;
        known = 1;
    }
    return verbose;
}

long tu_env_int(const char *name, long fallback)
{
    const char *env = getenv(name);
    return env && *env ? strtol(env, NULL, 0) : fallback;
}

int tu_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
    if (ok) {
        ++g_passed;
        if (!tu_verbose()) return 1;
        printf("ok   %s:%d: ", file, line);
    } else {
        ++g_failed;
        printf("FAIL %s:%d: %s: ", file, line, expr);
    }
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return ok;
}

void tu_skip(const char *fmt, ...)
{
    ++g_skipped;
    printf("SKIP: ");
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

int tu_failures(void) { return g_failed; }

int tu_summary(void)
{
    if (g_skipped)
        printf("%d passed, %d failed, %d skipped\n", g_passed, g_failed, g_skipped);
    else
        printf("%d passed, %d failed\n", g_passed, g_failed);
    fflush(stdout);
    if (g_failed) return 1;
    if (g_passed == 0 && g_skipped > 0) return 77;
    return 0;
}
