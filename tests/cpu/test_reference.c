/*
 * test_reference — the CPU reference backend against a naive oracle written here.
 *
 * Part 1 checks src/numeric.h exhaustively (every f16/bf16/e4m3/int8 pattern, every rounding tie).
 * Part 2 runs flashc_attention_forward (backend CPU, host pointers) on random inputs for every
 * feature and dtype, and compares with the oracle below, which shares no code with
 * src/reference.c: it decodes elements with its own bit-field decoders, addresses tensors through
 * the public layouts (user strides, page tables, cu_seqlens), materialises each full score row
 * with explicit mask conditions and applies the textbook two-pass softmax.
 *
 * Inputs are scattered into their layout from per-sequence logical arrays; everything else in
 * every buffer (padding, unused keys and pages) holds a NaN poison, so reading it shows up.
 * Outputs start poisoned: every logical element must be written and nothing else.
 * Tolerance: f32 output 1e-6 relative (both sides are fp64 inside); f16/bf16 output 1 ulp.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flashc.h"
#include "numeric.h"
#include "test_util.h"

/* ======================================================================================== */
/* Independent decoders (oracle side): bit fields and ldexp, no numeric.h.                  */
/* ======================================================================================== */

static double ind_f16(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0x1f) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(m + 1024), e - 25);
    return sign ? -v : v;
}

static double ind_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

static double ind_e4m3(uint8_t x)
{
    int sign = x >> 7, e = (x >> 3) & 0xf, m = x & 7;
    if (e == 0xf && m == 7) return NAN;
    double v = e == 0 ? ldexp((double)m, -9) : ldexp((double)(m + 8), e - 10);
    return sign ? -v : v;
}

static double ind_decode(flashc_dtype dt, const void *base, int64_t idx)
{
    switch (dt) {
    case FLASHC_DTYPE_F32: return (double)((const float *)base)[idx];
    case FLASHC_DTYPE_F16: return ind_f16(((const uint16_t *)base)[idx]);
    case FLASHC_DTYPE_BF16: return ind_bf16(((const uint16_t *)base)[idx]);
    case FLASHC_DTYPE_FP8_E4M3: return ind_e4m3(((const uint8_t *)base)[idx]);
    case FLASHC_DTYPE_INT8: return (double)((const int8_t *)base)[idx];
    }
    return NAN;
}

static int same_value(double a, double b) { return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b)); }

/* ======================================================================================== */
/* Part 1: numeric.h                                                                        */
/* ======================================================================================== */

static void test_decoders(void)
{
    int bad = 0;
    for (uint32_t h = 0; h <= 0xffff; ++h) bad += !same_value(flashc_f16_to_double((uint16_t)h), ind_f16((uint16_t)h));
    TEST_CHECK(bad == 0, "f16 decode: %d of 65536 patterns differ from the bit-field decoder", bad);
    bad = 0;
    for (uint32_t h = 0; h <= 0xffff; ++h)
        bad += !same_value(flashc_bf16_to_double((uint16_t)h), ind_bf16((uint16_t)h));
    TEST_CHECK(bad == 0, "bf16 decode: %d of 65536 patterns differ", bad);
    bad = 0;
    for (uint32_t x = 0; x <= 0xff; ++x) bad += !same_value(flashc_e4m3_to_double((uint8_t)x), ind_e4m3((uint8_t)x));
    TEST_CHECK(bad == 0, "e4m3 decode: %d of 256 patterns differ", bad);
    bad = 0;
    for (int x = -128; x <= 127; ++x) bad += flashc_int8_to_double((int8_t)x) != (double)x;
    TEST_CHECK(bad == 0, "int8 decode: %d of 256 values differ", bad);

    /* Anchors from the format definitions. */
    TEST_CHECK(flashc_e4m3_to_double(0x7e) == 448.0 && flashc_e4m3_to_double(0xfe) == -448.0, "e4m3 max is 448");
    TEST_CHECK(flashc_e4m3_to_double(0x01) == 0x1p-9 && flashc_e4m3_to_double(0x08) == 0x1p-6,
               "e4m3 min subnormal 2^-9, min normal 2^-6");
    TEST_CHECK(isnan(flashc_e4m3_to_double(0x7f)) && isnan(flashc_e4m3_to_double(0xff)), "e4m3 0x7f/0xff are NaN");
    TEST_CHECK(flashc_e4m3_to_double(0x78) == 256.0, "e4m3 0x78 is 256 (exponent 15 is finite in e4m3fn)");
    TEST_CHECK(flashc_f16_to_double(0x7bff) == 65504.0 && flashc_f16_to_double(0x0001) == 0x1p-24, "f16 anchors");
    TEST_CHECK(flashc_bf16_to_double(0x3f80) == 1.0 && isinf(flashc_bf16_to_double(0xff80)), "bf16 anchors");
}

typedef uint32_t (*encode_fn)(double);
typedef double (*decode_fn)(uint32_t);
static uint32_t enc_f16(double x) { return flashc_double_to_f16(x); }
static uint32_t enc_bf16(double x) { return flashc_double_to_bf16(x); }
static uint32_t enc_e4m3(double x) { return flashc_double_to_e4m3(x); }
static double dec_f16(uint32_t h) { return ind_f16((uint16_t)h); }
static double dec_bf16(uint32_t h) { return ind_bf16((uint16_t)h); }
static double dec_e4m3(uint32_t h) { return ind_e4m3((uint8_t)h); }

/* Every finite pattern round-trips; every midpoint between neighbours rounds to the even one and
   the doubles just beside it round to the nearer one; signs are symmetric. */
static void check_encoder(const char *name, encode_fn enc, decode_fn dec, uint32_t max_finite, uint32_t sign_bit)
{
    int bad_round_trip = 0, bad_tie = 0, bad_side = 0;
    for (uint32_t h = 0; h <= max_finite; ++h) {
        double v = dec(h);
        bad_round_trip += enc(v) != h || enc(-v) != (h | sign_bit);
        if (h == max_finite) break;
        double a = v, b = dec(h + 1), mid = 0.5 * (a + b); /* exact: neighbours differ in one ulp */
        uint32_t even = (h & 1) ? h + 1 : h;
        bad_tie += enc(mid) != even || enc(-mid) != (even | sign_bit);
        bad_side += enc(nextafter(mid, 0.0)) != h || enc(nextafter(mid, INFINITY)) != h + 1;
    }
    TEST_CHECK(bad_round_trip == 0, "%s encode(decode(x)) == x: %d failures", name, bad_round_trip);
    TEST_CHECK(bad_tie == 0, "%s ties round to even: %d failures", name, bad_tie);
    TEST_CHECK(bad_side == 0, "%s values beside a tie round to the nearer neighbour: %d failures", name, bad_side);
}

static void test_encoders(tu_rng *r)
{
    check_encoder("f16", enc_f16, dec_f16, 0x7bff, 0x8000);
    check_encoder("bf16", enc_bf16, dec_bf16, 0x7f7f, 0x8000);
    check_encoder("e4m3", enc_e4m3, dec_e4m3, 0x7e, 0x80);

    /* Overflow, saturation, specials. */
    TEST_CHECK(flashc_double_to_f16(65519.99) == 0x7bff && flashc_double_to_f16(65520.0) == 0x7c00,
               "f16 overflows to inf from the midpoint 65520");
    TEST_CHECK(flashc_double_to_f16(-1e300) == 0xfc00 && flashc_double_to_f16(INFINITY) == 0x7c00, "f16 inf");
    TEST_CHECK(flashc_double_to_bf16(1e300) == 0x7f80 && flashc_double_to_bf16(-INFINITY) == 0xff80, "bf16 inf");
    TEST_CHECK(flashc_double_to_e4m3(449.0) == 0x7e && flashc_double_to_e4m3(464.0) == 0x7e &&
                   flashc_double_to_e4m3(1e300) == 0x7e && flashc_double_to_e4m3(-1e9) == 0xfe,
               "e4m3 saturates to ±448");
    TEST_CHECK(flashc_double_to_e4m3(INFINITY) == 0x7e && flashc_double_to_e4m3(-INFINITY) == 0xfe,
               "e4m3 ±inf saturates to ±448");
    TEST_CHECK((flashc_double_to_e4m3(NAN) & 0x7f) == 0x7f, "e4m3 NaN stays NaN");
    TEST_CHECK(isnan(ind_f16(flashc_double_to_f16(NAN))) && isnan(ind_bf16(flashc_double_to_bf16(NAN))),
               "f16/bf16 NaN stays NaN");
    TEST_CHECK(flashc_double_to_f16(0x1p-25) == 0x0000 && flashc_double_to_f16(3 * 0x1p-25) == 0x0002 &&
                   flashc_double_to_f16(-0x1p-26) == 0x8000 && flashc_double_to_e4m3(0x1p-10) == 0x00,
               "subnormal ties and underflow keep the sign");
    TEST_CHECK(flashc_double_to_int8(2.5) == 2 && flashc_double_to_int8(-3.5) == -4 &&
                   flashc_double_to_int8(300.0) == 127 && flashc_double_to_int8(-300.0) == -128,
               "int8 encode rounds half even and saturates");

    /* Float entry points round like the double ones (a float widens exactly). */
    int bad = 0;
    for (int i = 0; i < 100000; ++i) {
        uint32_t u = (uint32_t)tu_rng_u64(r);
        float f;
        memcpy(&f, &u, sizeof f);
        if (isnan(f)) continue;
        bad += flashc_float_to_f16(f) != flashc_double_to_f16(f) || flashc_float_to_bf16(f) != flashc_double_to_bf16(f) ||
               flashc_float_to_e4m3(f) != flashc_double_to_e4m3(f);
    }
    TEST_CHECK(bad == 0, "float and double encoders agree on random floats: %d failures", bad);
    /* bf16 from float against the classic bit trick (RNE on the dropped 16 bits). */
    bad = 0;
    for (int i = 0; i < 100000; ++i) {
        uint32_t u = (uint32_t)tu_rng_u64(r);
        float f;
        memcpy(&f, &u, sizeof f);
        if (isnan(f)) continue;
        uint32_t trick = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        bad += flashc_float_to_bf16(f) != (uint16_t)trick;
    }
    TEST_CHECK(bad == 0, "bf16 encode matches the integer RNE trick: %d failures", bad);
}

/* ======================================================================================== */
/* Part 2: attention against the oracle                                                     */
/* ======================================================================================== */

enum { KV_BATCHED, KV_VARLEN, KV_PAGED };
enum { DS_NONE, DS_FULL, DS_SCALAR, DS_PER_HEAD, DS_PER_BATCH, DS_COUNT };
enum {
    BIAS_NONE,
    BIAS_FULL,      /* [b, h_q, s_q, s_k] */
    BIAS_ONE_BATCH, /* [1, h_q, s_q, s_k] */
    BIAS_ONE_HEAD,  /* [b, 1, s_q, s_k] */
    BIAS_STRIDE0,   /* full extents, b and h strides 0 */
    BIAS_KEY_ROW,   /* [b, h_q, 1, s_k]: one row for every query (key padding style) */
    BIAS_SHARED,    /* [1, 1, s_q, s_k] */
    BIAS_COUNT
};
enum { ALIBI_NONE, ALIBI_H, ALIBI_BH, ALIBI_COUNT };

typedef struct tcase {
    const char *name;
    flashc_dtype in, out;
    int b, hq, hkv, d;
    int sq, sk;        /* batched extents, or the max lengths (varlen / paged) */
    int q_varlen, kv;  /* KV_* */
    int page_size;
    int seqused;       /* batched/varlen k: random seqused_k (paged always has it) */
    int empty;         /* force an empty query sequence and an empty key sequence */
    int vt;            /* v_transposed */
    int descale;       /* DS_* (8-bit inputs) */
    int causal, wl, wr;
    float scale, softcap;
    int bias;          /* BIAS_* */
    flashc_dtype bias_dt;
    int bias_ninf;     /* some bias entries -inf, and one query row all -inf */
    int alibi;         /* ALIBI_* */
    int lse;
    int pad;           /* padded (non-contiguous) strides on q, k, v, out, lse */
    int repeat;        /* run twice: the outputs must be bit-identical */
} tcase;

static const char *kv_name(int kv) { return kv == KV_VARLEN ? "varlen" : kv == KV_PAGED ? "paged" : "batched"; }

static void describe(const tcase *c, char *buf, size_t n)
{
    snprintf(buf, n,
             "[%s] in=%s out=%s b=%d hq=%d hkv=%d d=%d sq=%d sk=%d q=%s kv=%s ps=%d seqused=%d empty=%d vt=%d "
             "descale=%d causal=%d wl=%d wr=%d scale=%g softcap=%g bias=%d/%s%s alibi=%d lse=%d pad=%d",
             c->name, tu_dtype_name(c->in), tu_dtype_name(c->out), c->b, c->hq, c->hkv, c->d, c->sq, c->sk,
             c->q_varlen ? "varlen" : "batched", kv_name(c->kv), c->page_size, c->seqused, c->empty, c->vt, c->descale,
             c->causal, c->wl, c->wr, (double)c->scale, (double)c->softcap, c->bias, tu_dtype_name(c->bias_dt),
             c->bias_ninf ? "(-inf)" : "", c->alibi, c->lse, c->pad);
}

static int is_8bit(flashc_dtype t) { return t == FLASHC_DTYPE_FP8_E4M3 || t == FLASHC_DTYPE_INT8; }

/* A defaulted case: batched, f16 -> f32, small odd sizes, LSE on. */
static tcase base_case(const char *name)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.in = FLASHC_DTYPE_F16;
    c.out = FLASHC_DTYPE_F32;
    c.b = 2;
    c.hq = 4;
    c.hkv = 2;
    c.d = 32;
    c.sq = 17;
    c.sk = 23;
    c.page_size = 16;
    c.wl = c.wr = -1;
    c.bias_dt = FLASHC_DTYPE_F32;
    c.lse = 1;
    return c;
}

/* Everything one run allocates. */
typedef struct run_state {
    tu_tensor q, k, v, o, lse, bias, alibi, ds[3];
    int32_t *lq, *lk, *kstore, *cu_q, *cu_k, *used, *page_table;
    int64_t pt_stride;
    int max_pages;
} run_state;

static void free_state(run_state *s)
{
    tu_tensor_free(&s->q);
    tu_tensor_free(&s->k);
    tu_tensor_free(&s->v);
    tu_tensor_free(&s->o);
    tu_tensor_free(&s->lse);
    tu_tensor_free(&s->bias);
    tu_tensor_free(&s->alibi);
    for (int i = 0; i < 3; ++i) tu_tensor_free(&s->ds[i]);
    free(s->lq);
    free(s->lk);
    free(s->kstore);
    free(s->cu_q);
    free(s->cu_k);
    free(s->used);
    free(s->page_table);
}

static double random_input(tu_rng *r, flashc_dtype dt)
{
    switch (dt) {
    case FLASHC_DTYPE_INT8: return (double)tu_rng_int(r, -127, 127);
    case FLASHC_DTYPE_FP8_E4M3: return tu_rng_normal(r, 0.0, 1.5);
    default: return tu_rng_normal(r, 0.0, 1.0);
    }
}

/* Offsets (in elements) of logical elements in the user layouts. */
static int64_t q_offset(const tcase *c, const run_state *s, const flashc_tensor *t, int bi, int i, int h)
{
    if (c->q_varlen) return (int64_t)(s->cu_q[bi] + i) * t->stride[0] + h * t->stride[1];
    return bi * t->stride[0] + (int64_t)i * t->stride[1] + h * t->stride[2];
}

/* Key j of sequence bi, head h, element dd of K (or V when !transposed). */
static int64_t kv_offset(const tcase *c, const run_state *s, const flashc_tensor *t, int transposed, int bi, int j,
                         int h, int dd)
{
    if (c->kv == KV_PAGED) {
        int64_t page = s->page_table[bi * s->pt_stride + j / c->page_size], r = j % c->page_size;
        if (transposed) return page * t->stride[0] + h * t->stride[1] + dd * t->stride[2] + r;
        return page * t->stride[0] + r * t->stride[1] + h * t->stride[2] + dd;
    }
    if (c->kv == KV_VARLEN) {
        int64_t row = s->cu_k[bi] + j;
        if (transposed) return h * t->stride[0] + dd * t->stride[1] + row;
        return row * t->stride[0] + h * t->stride[1] + dd;
    }
    if (transposed) return bi * t->stride[0] + h * t->stride[1] + dd * t->stride[2] + j;
    return bi * t->stride[0] + (int64_t)j * t->stride[1] + h * t->stride[2] + dd;
}

/* Element of a broadcastable tensor: extent-1 dims index 0. */
static double bcast_at(const flashc_tensor *t, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < t->ndim; ++i) off += (t->shape[i] == 1 ? 0 : idx[i]) * t->stride[i];
    return ind_decode(t->dtype, t->data, off);
}

static int alloc_or_fail(int rc, const char *what)
{
    if (rc != 0) TEST_CHECK(0, "allocation of %s failed", what);
    return rc == 0;
}

/* Build every tensor of case c. Returns 0 on success. */
static int build(const tcase *c, tu_rng *r, run_state *s, flashc_attention_params *P)
{
    const int b = c->b;
    const int64_t pad_q3[3] = {5, 3, 0}, pad_q4[4] = {7, 5, 3, 0};
    s->lq = calloc((size_t)b, sizeof(int32_t));
    s->lk = calloc((size_t)b, sizeof(int32_t));
    s->kstore = calloc((size_t)b, sizeof(int32_t));
    s->cu_q = calloc((size_t)b + 1, sizeof(int32_t));
    s->cu_k = calloc((size_t)b + 1, sizeof(int32_t));
    s->used = calloc((size_t)b, sizeof(int32_t));
    if (!s->lq || !s->lk || !s->kstore || !s->cu_q || !s->cu_k || !s->used) return alloc_or_fail(-1, "lengths") - 1;

    /* ---- sequence lengths ---- */
    for (int bi = 0; bi < b; ++bi) {
        s->lq[bi] = c->q_varlen ? (int32_t)tu_rng_int(r, 1, c->sq) : c->sq;
        if (c->kv == KV_VARLEN) s->kstore[bi] = (int32_t)tu_rng_int(r, 1, c->sk);
        else s->kstore[bi] = c->sk; /* batched extent, or paged: max_seqlen_k */
        int with_used = c->kv == KV_PAGED || c->seqused;
        s->lk[bi] = with_used ? (int32_t)tu_rng_int(r, c->kv == KV_PAGED ? 1 : 0, s->kstore[bi]) : s->kstore[bi];
    }
    if (c->q_varlen) s->lq[b - 1] = c->sq; /* one sequence reaches max_seqlen_q */
    if (c->empty) {
        s->lk[0] = 0; /* rows of sequence 0 see no key */
        if (c->kv == KV_VARLEN && !c->seqused) s->kstore[0] = 0;
        if (c->q_varlen && b > 1) s->lq[1] = 0;
    }
    for (int bi = 0; bi < b; ++bi) {
        s->cu_q[bi + 1] = s->cu_q[bi] + s->lq[bi];
        s->cu_k[bi + 1] = s->cu_k[bi] + s->kstore[bi];
        s->used[bi] = s->lk[bi];
    }
    const int total_q = s->cu_q[b];
    const int total_k = s->cu_k[b] + 3; /* trailing rows no sequence owns */

    /* ---- Q ---- */
    const int64_t d = c->d;
    int ok;
    if (c->q_varlen) {
        const int64_t shape[3] = {total_q, c->hq, d};
        ok = alloc_or_fail(tu_tensor_alloc(&s->q, c->in, 3, shape, c->pad ? pad_q3 : NULL), "q") &&
             alloc_or_fail(tu_tensor_alloc(&s->o, c->out, 3, shape, c->pad ? pad_q3 : NULL), "out");
    } else {
        const int64_t shape[4] = {b, c->sq, c->hq, d};
        ok = alloc_or_fail(tu_tensor_alloc(&s->q, c->in, 4, shape, c->pad ? pad_q4 : NULL), "q") &&
             alloc_or_fail(tu_tensor_alloc(&s->o, c->out, 4, shape, c->pad ? pad_q4 : NULL), "out");
    }
    if (!ok) return -1;
    for (int bi = 0; bi < b; ++bi)
        for (int i = 0; i < s->lq[bi]; ++i)
            for (int h = 0; h < c->hq; ++h) {
                int64_t off = q_offset(c, s, &s->q.view, bi, i, h);
                for (int dd = 0; dd < d; ++dd) tu_encode(c->in, s->q.alloc, off + dd, random_input(r, c->in));
            }

    /* ---- K / V storage ---- */
    int64_t kshape[4], vshape[4];
    int kn;
    if (c->kv == KV_PAGED) {
        s->max_pages = (c->sk + c->page_size - 1) / c->page_size;
        s->pt_stride = s->max_pages + 1;
        int needed = 0;
        for (int bi = 0; bi < b; ++bi) needed += (s->lk[bi] + c->page_size - 1) / c->page_size;
        const int spare = 2, num_pages = needed + spare;
        int32_t *pool = malloc(sizeof(int32_t) * (size_t)num_pages);
        s->page_table = malloc(sizeof(int32_t) * (size_t)(b * s->pt_stride));
        if (!pool || !s->page_table) {
            free(pool);
            return alloc_or_fail(-1, "page table") - 1;
        }
        for (int i = 0; i < num_pages; ++i) pool[i] = i;
        tu_rng_shuffle_i32(r, pool, num_pages);
        int next = 0;
        for (int bi = 0; bi < b; ++bi)
            for (int pg = 0; pg < s->pt_stride; ++pg) {
                int in_use = pg * c->page_size < s->lk[bi];
                /* Unused entries point at a spare page that only holds poison. */
                s->page_table[bi * s->pt_stride + pg] = in_use ? pool[next++] : pool[num_pages - 1];
            }
        free(pool);
        kn = 4;
        kshape[0] = num_pages, kshape[1] = c->page_size, kshape[2] = c->hkv, kshape[3] = d;
        vshape[0] = num_pages, vshape[1] = c->hkv, vshape[2] = d, vshape[3] = c->page_size;
    } else if (c->kv == KV_VARLEN) {
        kn = 3;
        kshape[0] = total_k, kshape[1] = c->hkv, kshape[2] = d;
        vshape[0] = c->hkv, vshape[1] = d, vshape[2] = total_k;
    } else {
        kn = 4;
        kshape[0] = b, kshape[1] = c->sk, kshape[2] = c->hkv, kshape[3] = d;
        vshape[0] = b, vshape[1] = c->hkv, vshape[2] = d, vshape[3] = c->sk;
    }
    const int64_t *pad_k = c->pad ? (kn == 4 ? pad_q4 : pad_q3) : NULL;
    if (!alloc_or_fail(tu_tensor_alloc(&s->k, c->in, kn, kshape, pad_k), "k") ||
        !alloc_or_fail(tu_tensor_alloc(&s->v, c->in, kn, c->vt ? vshape : kshape, pad_k), "v"))
        return -1;
    for (int bi = 0; bi < b; ++bi)
        for (int j = 0; j < s->lk[bi]; ++j)
            for (int h = 0; h < c->hkv; ++h)
                for (int dd = 0; dd < d; ++dd) {
                    tu_encode(c->in, s->k.alloc, kv_offset(c, s, &s->k.view, 0, bi, j, h, dd), random_input(r, c->in));
                    tu_encode(c->in, s->v.alloc, kv_offset(c, s, &s->v.view, c->vt, bi, j, h, dd),
                              random_input(r, c->in));
                }

    /* ---- LSE ---- */
    if (c->lse) {
        const int64_t pad_l[3] = {4, 2, 0};
        if (c->q_varlen) {
            const int64_t shape[2] = {c->hq, total_q};
            ok = tu_tensor_alloc(&s->lse, FLASHC_DTYPE_F32, 2, shape, c->pad ? pad_l + 1 : NULL);
        } else {
            const int64_t shape[3] = {b, c->hq, c->sq};
            ok = tu_tensor_alloc(&s->lse, FLASHC_DTYPE_F32, 3, shape, c->pad ? pad_l : NULL);
        }
        if (!alloc_or_fail(ok, "lse")) return -1;
    }

    /* ---- bias ---- */
    if (c->bias != BIAS_NONE) {
        int64_t shape[4] = {b, c->hq, c->sq, c->sk};
        if (c->bias == BIAS_ONE_BATCH || c->bias == BIAS_SHARED) shape[0] = 1;
        if (c->bias == BIAS_ONE_HEAD || c->bias == BIAS_SHARED) shape[1] = 1;
        if (c->bias == BIAS_KEY_ROW) shape[2] = 1;
        if (c->bias == BIAS_STRIDE0) {
            const int64_t stride[4] = {0, 0, c->sk + 1, 1};
            ok = tu_tensor_alloc_strided(&s->bias, c->bias_dt, 4, shape, stride);
        } else {
            ok = tu_tensor_alloc(&s->bias, c->bias_dt, 4, shape, NULL);
        }
        if (!alloc_or_fail(ok, "bias")) return -1;
        tu_tensor_fill_normal(r, &s->bias, 0.0, 1.0);
        if (c->bias_ninf) {
            int64_t n = tu_numel(&s->bias.view);
            for (int64_t e = 0; e < n; ++e) {
                int64_t off = tu_offset(&s->bias.view, e);
                int64_t row = (e / shape[3]) % shape[2];
                if (row == 0 || tu_rng_unit(r) < 0.15) tu_encode(c->bias_dt, s->bias.alloc, off, -INFINITY);
            }
        }
    }

    /* ---- ALiBi slopes ---- */
    if (c->alibi != ALIBI_NONE) {
        const int64_t sh_h[1] = {c->hq}, sh_bh[2] = {b, c->hq};
        ok = c->alibi == ALIBI_H ? tu_tensor_alloc(&s->alibi, FLASHC_DTYPE_F32, 1, sh_h, NULL)
                                 : tu_tensor_alloc(&s->alibi, FLASHC_DTYPE_F32, 2, sh_bh, NULL);
        if (!alloc_or_fail(ok, "alibi")) return -1;
        tu_tensor_fill_uniform(r, &s->alibi, 0.01, 0.6);
    }

    /* ---- descales [b, h_kv] ---- */
    if (c->descale != DS_NONE) {
        const int64_t shape[2] = {b, c->hkv};
        int64_t stride[2];
        switch (c->descale) {
        case DS_SCALAR: stride[0] = 0, stride[1] = 0; break;
        case DS_PER_HEAD: stride[0] = 0, stride[1] = 1; break;
        case DS_PER_BATCH: stride[0] = 1, stride[1] = 0; break;
        default: stride[0] = c->hkv, stride[1] = 1; break;
        }
        const double lo = c->in == FLASHC_DTYPE_INT8 ? 0.004 : 0.5, hi = c->in == FLASHC_DTYPE_INT8 ? 0.03 : 1.5;
        for (int i = 0; i < 3; ++i) {
            if (!alloc_or_fail(tu_tensor_alloc_strided(&s->ds[i], FLASHC_DTYPE_F32, 2, shape, stride), "descale"))
                return -1;
            tu_tensor_fill_uniform(r, &s->ds[i], lo, hi);
        }
    }

    /* ---- params ---- */
    flashc_attention_params_init(P);
    P->q = s->q.view;
    P->k = s->k.view;
    P->v = s->v.view;
    P->out = s->o.view;
    if (c->lse) P->lse = s->lse.view;
    P->v_transposed = c->vt;
    P->batch = b;
    if (c->q_varlen) {
        P->cu_seqlens_q = s->cu_q;
        P->max_seqlen_q = c->sq;
    }
    if (c->kv == KV_VARLEN) {
        P->cu_seqlens_k = s->cu_k;
        P->max_seqlen_k = c->sk;
    }
    if (c->kv == KV_PAGED) {
        P->page_table = s->page_table;
        P->page_table_stride = s->pt_stride;
        P->max_pages_per_seq = s->max_pages;
        P->max_seqlen_k = c->sk;
    }
    /* seqused_k is how a batched K/V says a sequence uses fewer keys (the empty case needs it). */
    if (c->kv == KV_PAGED || c->seqused || (c->empty && c->kv == KV_BATCHED)) P->seqused_k = s->used;
    if (c->descale != DS_NONE) {
        P->q_descale = s->ds[0].view;
        P->k_descale = s->ds[1].view;
        P->v_descale = s->ds[2].view;
    }
    P->softmax_scale = c->scale;
    P->softcap = c->softcap;
    P->causal = c->causal;
    P->window_left = c->wl;
    P->window_right = c->wr;
    if (c->bias != BIAS_NONE) P->bias = s->bias.view;
    if (c->alibi != ALIBI_NONE) P->alibi_slopes = s->alibi.view;
    P->backend = FLASHC_BACKEND_CPU;
    return 0;
}

/* ---- The oracle ---- */

typedef struct oracle_row {
    double *out; /* [d] */
    double lse;
    int empty;   /* no key may be attended (or all scores -inf) */
} oracle_row;

static double descale_at(const run_state *s, int which, int bi, int hk)
{
    if (!s->ds[which].alloc) return 1.0;
    const flashc_tensor *t = &s->ds[which].view;
    return ind_decode(FLASHC_DTYPE_F32, t->data, bi * t->stride[0] + hk * t->stride[1]);
}

static void oracle(const tcase *c, const run_state *s, int bi, int h, int i, double *row, oracle_row *res)
{
    const int sqb = s->lq[bi], skb = s->lk[bi], d = c->d;
    const int hk = h / (c->hq / c->hkv);
    const double scale = c->scale != 0.0f ? (double)c->scale : (double)(float)(1.0 / sqrt((double)d));
    const double qd = descale_at(s, 0, bi, hk), kd = descale_at(s, 1, bi, hk), vd = descale_at(s, 2, bi, hk);
    const int64_t qoff = q_offset(c, s, &s->q.view, bi, i, h);

    /* Scores: every key of the sequence, masked ones set to -inf. */
    for (int j = 0; j < skb; ++j) {
        int allowed = 1;
        const long diag = (long)i + skb - sqb;
        if (c->causal && j > diag) allowed = 0;
        if (c->wr >= 0 && j > diag + c->wr) allowed = 0;
        if (c->wl >= 0 && j < diag - c->wl) allowed = 0;
        if (!allowed) {
            row[j] = -INFINITY;
            continue;
        }
        double qk = 0.0;
        for (int dd = 0; dd < d; ++dd)
            qk += ind_decode(c->in, s->q.alloc, qoff + dd) *
                  ind_decode(c->in, s->k.alloc, kv_offset(c, s, &s->k.view, 0, bi, j, hk, dd));
        double sc = qk * qd * kd * scale;
        if (c->softcap > 0.0f) sc = (double)c->softcap * tanh(sc / (double)c->softcap);
        if (c->bias != BIAS_NONE) {
            const int64_t idx[4] = {bi, h, i, j};
            sc += bcast_at(&s->bias.view, idx);
        }
        if (c->alibi != ALIBI_NONE) {
            const int64_t idx[2] = {bi, h};
            double slope = c->alibi == ALIBI_H ? bcast_at(&s->alibi.view, idx + 1) : bcast_at(&s->alibi.view, idx);
            sc += -slope * fabs((double)i + skb - sqb - j);
        }
        row[j] = sc;
    }
    /* Two-pass softmax. */
    double m = -INFINITY;
    for (int j = 0; j < skb; ++j)
        if (row[j] > m) m = row[j];
    for (int dd = 0; dd < d; ++dd) res->out[dd] = 0.0;
    if (m == -INFINITY) {
        res->empty = 1;
        res->lse = -INFINITY;
        return;
    }
    res->empty = 0;
    double sum = 0.0;
    for (int j = 0; j < skb; ++j) sum += exp(row[j] - m);
    for (int j = 0; j < skb; ++j) {
        double pj = exp(row[j] - m) / sum;
        if (pj == 0.0) continue;
        for (int dd = 0; dd < d; ++dd)
            res->out[dd] += pj * ind_decode(c->in, s->v.alloc, kv_offset(c, s, &s->v.view, c->vt, bi, j, hk, dd));
    }
    for (int dd = 0; dd < d; ++dd) res->out[dd] *= vd;
    res->lse = m + log(sum);
}

/* Run case c through the API and compare with the oracle. */
static void run_case(const tcase *c, tu_rng *r)
{
    char desc[512];
    describe(c, desc, sizeof desc);
    if (tu_verbose()) printf("case %s\n", desc);
    run_state s;
    memset(&s, 0, sizeof s);
    flashc_attention_params P;
    if (build(c, r, &s, &P) != 0) {
        free_state(&s);
        return;
    }
    flashc_status st = flashc_attention_forward(&P, NULL, 0, NULL);
    if (!TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "%s: forward returned %s: %s", desc, flashc_status_string(st),
                    flashc_last_error())) {
        free_state(&s);
        return;
    }

    if (c->repeat) { /* the reference is deterministic: a second run reproduces every bit */
        void *first = malloc(s.o.bytes);
        if (first) {
            memcpy(first, s.o.alloc, s.o.bytes);
            tu_poison(s.o.alloc, c->out, s.o.span);
            st = flashc_attention_forward(&P, NULL, 0, NULL);
            TEST_CHECK(st == FLASHC_STATUS_SUCCESS && memcmp(first, s.o.alloc, s.o.bytes) == 0,
                       "%s: a second run gives bit-identical output", desc);
            free(first);
        }
    }

    /* Gather got/want in logical order. */
    const int d = c->d;
    int64_t rows = 0;
    for (int bi = 0; bi < c->b; ++bi) rows += (int64_t)s.lq[bi] * c->hq;
    double *got = malloc(sizeof(double) * (size_t)(rows * d + 1));
    double *want = malloc(sizeof(double) * (size_t)(rows * d + 1));
    double *got_lse = malloc(sizeof(double) * (size_t)(rows + 1));
    double *want_lse = malloc(sizeof(double) * (size_t)(rows + 1));
    double *score = malloc(sizeof(double) * (size_t)(c->sk + 1));
    double *orow = malloc(sizeof(double) * (size_t)d);
    if (!got || !want || !got_lse || !want_lse || !score || !orow) {
        TEST_CHECK(0, "%s: allocation of comparison buffers failed", desc);
    } else {
        int64_t n = 0, empty_rows = 0, empty_bad = 0;
        for (int bi = 0; bi < c->b; ++bi)
            for (int h = 0; h < c->hq; ++h)
                for (int i = 0; i < s.lq[bi]; ++i, ++n) {
                    oracle_row res = {orow, 0.0, 0};
                    oracle(c, &s, bi, h, i, score, &res);
                    const int64_t ooff = q_offset(c, &s, &s.o.view, bi, i, h);
                    int row_zero = 1;
                    for (int dd = 0; dd < d; ++dd) {
                        got[n * d + dd] = ind_decode(c->out, s.o.alloc, ooff + dd);
                        want[n * d + dd] = res.out[dd];
                        row_zero &= got[n * d + dd] == 0.0;
                    }
                    want_lse[n] = res.lse;
                    got_lse[n] = res.lse;
                    if (c->lse) {
                        const flashc_tensor *t = &s.lse.view;
                        int64_t off = c->q_varlen ? h * t->stride[0] + s.cu_q[bi] + i
                                                  : bi * t->stride[0] + h * t->stride[1] + i;
                        got_lse[n] = ind_decode(FLASHC_DTYPE_F32, t->data, off);
                    }
                    if (res.empty) {
                        ++empty_rows;
                        empty_bad += !row_zero || (c->lse && !(got_lse[n] == -INFINITY));
                    }
                }
        tu_cmp cmp = c->out == FLASHC_DTYPE_F32
                         ? tu_compare(got, want, n * d, 1e-12, 1e-6, 0.0, FLASHC_DTYPE_F32)
                         : tu_compare(got, want, n * d, 1e-12, 0.0, 1.0, c->out);
        if (!TEST_CHECK(cmp.n_bad == 0, "%s: output vs oracle", desc)) tu_cmp_print("  out", &cmp);
        if (c->lse) {
            tu_cmp lc = tu_compare(got_lse, want_lse, n, 1e-6, 1e-6, 0.0, FLASHC_DTYPE_F32);
            if (!TEST_CHECK(lc.n_bad == 0, "%s: lse vs oracle", desc)) tu_cmp_print("  lse", &lc);
            TEST_CHECK(tu_tensor_poison_intact(&s.lse) == 0, "%s: lse padding was written", desc);
        }
        TEST_CHECK(tu_tensor_poison_intact(&s.o) == 0, "%s: out padding was written", desc);
        if (empty_rows)
            TEST_CHECK(empty_bad == 0, "%s: %lld of %lld rows without keys are not zeros with LSE -inf", desc,
                       (long long)empty_bad, (long long)empty_rows);
    }
    free(got);
    free(want);
    free(got_lse);
    free(want_lse);
    free(score);
    free(orow);
    free_state(&s);
}

/* ---- Named cases: every feature at least once ---- */

static void named_cases(tu_rng *r)
{
    static const flashc_dtype ins[4] = {FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16, FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
    static const flashc_dtype outs[3] = {FLASHC_DTYPE_F32, FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16};
    tcase c;

    /* dtype x output dtype (8-bit with full descales) */
    for (int a = 0; a < 4; ++a)
        for (int o = 0; o < 3; ++o) {
            c = base_case("dtypes");
            c.in = ins[a];
            c.out = outs[o];
            c.descale = is_8bit(c.in) ? DS_FULL : DS_NONE;
            run_case(&c, r);
        }
    /* descale broadcast modes, and none */
    for (int a = 2; a < 4; ++a)
        for (int m = 0; m < DS_COUNT; ++m) {
            c = base_case("descale modes");
            c.in = ins[a];
            c.descale = m;
            c.hkv = 2;
            c.hq = 6;
            run_case(&c, r);
        }
    /* v_transposed for 8-bit types, each K/V layout */
    for (int a = 2; a < 4; ++a)
        for (int kv = 0; kv < 3; ++kv) {
            c = base_case("v_transposed");
            c.in = ins[a];
            c.out = FLASHC_DTYPE_BF16;
            c.vt = 1;
            c.kv = kv;
            c.page_size = 7;
            c.descale = DS_FULL;
            run_case(&c, r);
        }
    /* varlen q and/or k, with empty sequences and seqused_k */
    c = base_case("varlen q+k empty");
    c.b = 4, c.q_varlen = 1, c.kv = KV_VARLEN, c.empty = 1, c.sq = 29, c.sk = 31;
    run_case(&c, r);
    c.name = "varlen q+k empty seqused causal", c.seqused = 1, c.causal = 1, c.in = FLASHC_DTYPE_BF16;
    run_case(&c, r);
    c = base_case("varlen q, batched k");
    c.b = 3, c.q_varlen = 1, c.sq = 13, c.sk = 40, c.causal = 1;
    run_case(&c, r);
    c = base_case("batched q, varlen k");
    c.b = 3, c.kv = KV_VARLEN, c.sq = 9, c.sk = 40, c.causal = 1, c.wl = 6;
    run_case(&c, r);
    c = base_case("batched seqused_k");
    c.b = 3, c.seqused = 1, c.sk = 50, c.causal = 1;
    run_case(&c, r);
    /* paged: page sizes 1, 7, 16, 257 (shuffled tables, seqused_k) */
    static const int page_sizes[4] = {1, 7, 16, 257};
    for (int i = 0; i < 4; ++i) {
        c = base_case("paged");
        c.kv = KV_PAGED, c.page_size = page_sizes[i], c.b = 3, c.sk = i == 3 ? 300 : 45, c.sq = 5;
        run_case(&c, r);
        c.name = "paged varlen q causal empty", c.q_varlen = 1, c.causal = 1, c.empty = 1, c.sq = 11;
        run_case(&c, r);
    }
    /* GQA ratios 1, 4, 8 and MQA */
    static const int groups[3] = {1, 4, 8};
    for (int g = 0; g < 3; ++g) {
        c = base_case("gqa");
        c.hkv = 2, c.hq = 2 * groups[g];
        run_case(&c, r);
    }
    c = base_case("mqa");
    c.hkv = 1, c.hq = 6, c.in = FLASHC_DTYPE_FP8_E4M3, c.descale = DS_FULL;
    run_case(&c, r);
    /* bias: every broadcast form and dtype */
    static const flashc_dtype bias_dts[3] = {FLASHC_DTYPE_F32, FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16};
    for (int m = BIAS_FULL; m < BIAS_COUNT; ++m)
        for (int t = 0; t < 3; ++t) {
            c = base_case("bias");
            c.bias = m, c.bias_dt = bias_dts[t];
            run_case(&c, r);
        }
    c = base_case("bias varlen local positions");
    c.bias = BIAS_FULL, c.q_varlen = 1, c.kv = KV_VARLEN, c.b = 3, c.sq = 15, c.sk = 21, c.causal = 1;
    run_case(&c, r);
    c = base_case("bias -inf entries and rows");
    c.bias = BIAS_FULL, c.bias_ninf = 1;
    run_case(&c, r);
    c.bias_dt = FLASHC_DTYPE_BF16, c.bias = BIAS_ONE_HEAD, c.kv = KV_PAGED, c.page_size = 7, c.out = FLASHC_DTYPE_F16;
    run_case(&c, r);
    /* ALiBi [h] and [b, h] */
    for (int m = ALIBI_H; m < ALIBI_COUNT; ++m) {
        c = base_case("alibi");
        c.alibi = m;
        run_case(&c, r);
        c.name = "alibi causal varlen", c.causal = 1, c.q_varlen = 1, c.kv = KV_VARLEN, c.b = 3;
        run_case(&c, r);
    }
    /* causal with s_q < s_k, s_q > s_k, s_q == s_k; sliding windows */
    static const int sqk[3][2] = {{7, 33}, {33, 7}, {19, 19}};
    for (int i = 0; i < 3; ++i) {
        c = base_case("causal");
        c.sq = sqk[i][0], c.sk = sqk[i][1], c.causal = 1;
        run_case(&c, r);
        c.name = "causal + window_left", c.wl = 4;
        run_case(&c, r);
    }
    static const int windows[5][2] = {{3, 2}, {-1, 4}, {0, 0}, {5, -1}, {0, -1}};
    for (int i = 0; i < 5; ++i) {
        c = base_case("window");
        c.sq = 21, c.sk = 30, c.wl = windows[i][0], c.wr = windows[i][1];
        run_case(&c, r);
    }
    /* softcap (alone and with bias + alibi), custom softmax_scale */
    c = base_case("softcap");
    c.softcap = 5.0f, c.scale = 0.9f;
    run_case(&c, r);
    c.name = "softcap bias alibi", c.softcap = 2.5f, c.bias = BIAS_FULL, c.alibi = ALIBI_BH, c.out = FLASHC_DTYPE_BF16;
    run_case(&c, r);
    c = base_case("softmax_scale");
    c.scale = 0.05f, c.in = FLASHC_DTYPE_BF16;
    run_case(&c, r);
    /* non-contiguous strides everywhere */
    for (int kv = 0; kv < 3; ++kv) {
        c = base_case("padded strides");
        c.pad = 1, c.kv = kv, c.page_size = 7, c.q_varlen = kv == KV_VARLEN;
        run_case(&c, r);
        c.name = "padded strides 8-bit vt", c.in = FLASHC_DTYPE_INT8, c.vt = 1, c.descale = DS_PER_HEAD;
        run_case(&c, r);
    }
    /* odd sizes, head dims */
    static const int odd[6][2] = {{1, 1}, {1, 100}, {7, 1}, {7, 33}, {33, 7}, {2, 3}};
    for (int i = 0; i < 6; ++i) {
        c = base_case("odd sizes");
        c.sq = odd[i][0], c.sk = odd[i][1], c.b = 1 + i % 3;
        run_case(&c, r);
    }
    static const int dims[5] = {64, 96, 128, 192, 256};
    for (int i = 0; i < 5; ++i) {
        c = base_case("head dim");
        c.d = dims[i], c.sq = 9, c.sk = 13, c.in = ins[i % 4], c.descale = is_8bit(c.in) ? DS_FULL : DS_NONE;
        run_case(&c, r);
    }
    /* blocks of rows and chunks of keys in the reference span several tiles */
    c = base_case("large causal window");
    c.b = 2, c.hq = 4, c.hkv = 1, c.d = 64, c.sq = 97, c.sk = 203, c.causal = 1, c.wl = 50;
    c.bias = BIAS_FULL, c.alibi = ALIBI_H, c.repeat = 1;
    run_case(&c, r);
    c = base_case("large varlen");
    c.b = 3, c.hq = 2, c.hkv = 2, c.d = 128, c.sq = 130, c.sk = 131, c.q_varlen = 1, c.kv = KV_VARLEN;
    c.in = FLASHC_DTYPE_BF16, c.out = FLASHC_DTYPE_BF16;
    run_case(&c, r);
    c = base_case("large paged sq > sk");
    c.b = 2, c.hq = 8, c.hkv = 2, c.sq = 150, c.sk = 90, c.kv = KV_PAGED, c.page_size = 16, c.causal = 1;
    c.in = FLASHC_DTYPE_INT8, c.descale = DS_FULL, c.vt = 1;
    run_case(&c, r);
    /* everything at once */
    c = base_case("all features");
    c.in = FLASHC_DTYPE_FP8_E4M3, c.out = FLASHC_DTYPE_F16, c.b = 3, c.hq = 8, c.hkv = 2, c.d = 64;
    c.sq = 19, c.sk = 40, c.q_varlen = 1, c.kv = KV_PAGED, c.page_size = 7, c.empty = 1, c.vt = 1;
    c.descale = DS_PER_BATCH, c.causal = 1, c.wl = 9, c.softcap = 8.0f, c.bias = BIAS_ONE_BATCH;
    c.bias_dt = FLASHC_DTYPE_BF16, c.alibi = ALIBI_BH, c.pad = 1, c.repeat = 1;
    run_case(&c, r);
}

/* ---- Random combinations ---- */

static int pick(tu_rng *r, int n) { return (int)tu_rng_int(r, 0, n - 1); }

static tcase random_case(tu_rng *r)
{
    static const flashc_dtype ins[4] = {FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16, FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
    static const flashc_dtype outs[3] = {FLASHC_DTYPE_F32, FLASHC_DTYPE_F16, FLASHC_DTYPE_BF16};
    static const int dims[4] = {32, 32, 64, 128};
    static const int page_sizes[5] = {1, 3, 7, 16, 257};
    static const int wls[4] = {-1, 0, 3, 11};
    static const int wrs[4] = {-1, 0, 2, 9};
    tcase c = base_case("random");
    c.in = ins[pick(r, 4)];
    c.out = outs[pick(r, 3)];
    c.d = dims[pick(r, 4)];
    c.hkv = 1 + pick(r, 3);
    c.hq = c.hkv * (1 << pick(r, 3));
    c.b = 1 + pick(r, 3);
    c.q_varlen = pick(r, 2);
    c.kv = pick(r, 3);
    c.sq = 1 + pick(r, pick(r, 4) == 0 ? 80 : 40);
    c.sk = 1 + pick(r, pick(r, 4) == 0 ? 150 : 60);
    c.page_size = page_sizes[pick(r, 5)];
    c.seqused = pick(r, 2);
    c.empty = pick(r, 4) == 0;
    c.vt = is_8bit(c.in) ? pick(r, 2) : 0;
    c.descale = is_8bit(c.in) ? pick(r, DS_COUNT) : DS_NONE;
    c.causal = pick(r, 2);
    c.wl = wls[pick(r, 4)];
    c.wr = c.causal ? (pick(r, 2) ? -1 : 0) : wrs[pick(r, 4)];
    c.scale = pick(r, 3) == 0 ? 0.2f : 0.0f;
    c.softcap = pick(r, 3) == 0 ? 6.0f : 0.0f;
    c.bias = pick(r, BIAS_COUNT);
    c.bias_dt = outs[pick(r, 3)];
    c.bias_ninf = c.bias != BIAS_NONE && pick(r, 4) == 0;
    c.alibi = pick(r, ALIBI_COUNT);
    c.lse = pick(r, 4) != 0;
    c.pad = pick(r, 2);
    return c;
}

/* The harness's division-free walk (tu_walk_next) visits what tu_offset computes, on padded,
   broadcast (stride 0), permuted, single-element and 1-D views. */
static void test_walk(void)
{
    static const struct { int32_t ndim; int64_t shape[4], stride[4]; } views[] = {
        {4, {2, 3, 5, 7}, {300, 70, 14, 1}}, {4, {3, 1, 4, 2}, {0, 5, 0, 1}}, {3, {4, 6, 5}, {1, 20, 4}},
        {4, {1, 1, 1, 1}, {9, 9, 9, 1}}, {1, {17, 0, 0, 0}, {3, 0, 0, 0}}, {2, {5, 3}, {1, 5}}};
    for (size_t k = 0; k < sizeof views / sizeof views[0]; ++k) {
        flashc_tensor v;
        memset(&v, 0, sizeof v);
        v.ndim = views[k].ndim;
        memcpy(v.shape, views[k].shape, sizeof v.shape);
        memcpy(v.stride, views[k].stride, sizeof v.stride);
        tu_walk w;
        memset(&w, 0, sizeof w);
        int64_t bad = 0;
        for (int64_t i = 0; i < tu_numel(&v); ++i, tu_walk_next(&w, &v)) bad += w.off != tu_offset(&v, i);
        TEST_CHECK(bad == 0, "tu_walk view %zu: %lld offsets differ from tu_offset", k, (long long)bad);
    }
}

int main(void)
{
    tu_rng r;
    tu_rng_init(&r, tu_seed());
    test_walk();
    test_decoders();
    test_encoders(&r);
    named_cases(&r);
    const long n_random = tu_env_int("FLASHC_TEST_RANDOM_CASES", 150);
    for (long i = 0; i < n_random; ++i) {
        tcase c = random_case(&r);
        run_case(&c, &r);
    }
    return tu_summary();
}
