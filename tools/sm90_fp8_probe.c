/* Dev probe for the Hopper fp8 kernels (not part of the library, CI or the build): structured
   inputs whose answers say *where* a wrong result comes from, for the first runs on a GPU.
   sm90_fp8_probe [D]   (D = 64 | 128 | 256; b = 1, one head, 128 query rows, V pre-transposed)

   1. uniform: Q = 0, so every key of s_k = 256 has weight 1/256 and O is the mean of V's rows,
      exactly (P = 2^6 for every key is exact in e4m3), and the LSE is ln 256. A wrong P.V
      descriptor or V^T box shows here without Q.K^T involved.
   2. one-hot: K[j] = 16 e_j and Q[i] = 16 e_pi(i) (pi a permutation of the first min(D, 128) keys),
      scale 1/16: row i's score is 16 for key pi(i) and 0 for the others, so O[i] = V[pi(i)] to
      within e^-16. Each output row is matched to the nearest V row: a P exchange that sends a
      key's probability to the wrong fragment slot shows as "row i took key k" with a fixed pattern
      of k - pi(i); scrambled columns (V^T layout) show as no close match at all, and the column
      map then says which V column each output column came from.
   Prints the findings and exits 1 if either check fails. Build on the device:
     gcc -O2 -std=c11 -I include -I src -I /usr/local/cuda/include tools/sm90_fp8_probe.c -o /tmp/probe \
         -L BUILD -lflashc -L/usr/local/cuda/lib64 -lcudart -lm && LD_LIBRARY_PATH=BUILD /tmp/probe 128 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "flashc.h"
#include "numeric.h" /* the library's own e4m3 / bf16 codecs */
#include "tool_check.h"

#define SQ 128
#define SK 256
#define ONEHOT_MAX 128 /* the one-hot keys (at most one key block) need d >= keys */
#define MATCH_TOL 0.05  /* |O - V[k]| max over a row that counts as "took key k" */

static int run(int d, const uint8_t *q, const uint8_t *k, const uint8_t *vt, float scale, float *o, float *lse)
{
    uint8_t *dq, *dk, *dvt;
    uint16_t *dout;
    float *dlse;
    CHECK(cudaMalloc((void **)&dq, (size_t)SQ * d));
    CHECK(cudaMalloc((void **)&dk, (size_t)SK * d));
    CHECK(cudaMalloc((void **)&dvt, (size_t)SK * d));
    CHECK(cudaMalloc((void **)&dout, (size_t)SQ * d * 2));
    CHECK(cudaMalloc((void **)&dlse, SQ * sizeof(float)));
    CHECK(cudaMemcpy(dq, q, (size_t)SQ * d, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dk, k, (size_t)SK * d, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dvt, vt, (size_t)SK * d, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0xff, (size_t)SQ * d * 2)); /* NaN poison */
    int64_t qs[4] = {1, SQ, 1, d}, ks[4] = {1, SK, 1, d}, vts[4] = {1, 1, d, SK}, ls[3] = {1, 1, SQ};
    flashc_attention_params p;
    flashc_attention_params_init(&p);
    p.q = flashc_make_tensor(dq, FLASHC_DTYPE_FP8_E4M3, 4, qs);
    p.k = flashc_make_tensor(dk, FLASHC_DTYPE_FP8_E4M3, 4, ks);
    p.v = flashc_make_tensor(dvt, FLASHC_DTYPE_FP8_E4M3, 4, vts);
    p.v_transposed = 1;
    p.out = flashc_make_tensor(dout, FLASHC_DTYPE_BF16, 4, qs);
    p.lse = flashc_make_tensor(dlse, FLASHC_DTYPE_F32, 3, ls);
    p.softmax_scale = scale;
    p.backend = FLASHC_BACKEND_SM90;
    flashc_status st = flashc_attention_forward(&p, NULL, 0, NULL);
    if (st != FLASHC_STATUS_SUCCESS) {
        printf("forward: %s: %s\n", flashc_status_string(st), flashc_last_error());
        return -1;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    uint16_t *hout = malloc((size_t)SQ * d * 2);
    if (!hout) return -1;
    CHECK(cudaMemcpy(hout, dout, (size_t)SQ * d * 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(lse, dlse, SQ * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < SQ * d; ++i) o[i] = flashc_bf16_to_float(hout[i]);
    free(hout);
    cudaFree(dq), cudaFree(dk), cudaFree(dvt), cudaFree(dout), cudaFree(dlse);
    return 0;
}

int main(int argc, char **argv)
{
    const int d = argc > 1 ? atoi(argv[1]) : 128;
    if (d != 64 && d != 128 && d != 256) {
        printf("usage: %s [64|128|256]\n", argv[0]);
        return 2;
    }
    const int onehot_keys = d < ONEHOT_MAX ? d : ONEHOT_MAX;
    uint8_t *q = calloc((size_t)SQ * d, 1), *k = calloc((size_t)SK * d, 1), *vt = calloc((size_t)SK * d, 1);
    float *v = malloc(sizeof(float) * SK * d), *o = malloc(sizeof(float) * SQ * d), lse[SQ];
    if (!q || !k || !vt || !v || !o) return 1;
    /* V: distinct rows of values exact in e4m3 (multiples of 1/2 in [-4, 4]) */
    srand(12345);
    for (int j = 0; j < SK; ++j)
        for (int c = 0; c < d; ++c) {
            v[j * d + c] = (float)(rand() % 17 - 8) * 0.5f;
            vt[c * SK + j] = flashc_float_to_e4m3(v[j * d + c]); /* V^T [d, s_k] */
        }
    int fails = 0;

    /* 1. uniform */
    if (run(d, q, k, vt, 1.0f, o, lse)) return 1;
    double err = 0, lse_err = 0;
    for (int i = 0; i < SQ; ++i) {
        for (int c = 0; c < d; ++c) {
            double mean = 0;
            for (int j = 0; j < SK; ++j) mean += v[j * d + c];
            mean /= SK;
            const double e = fabs(o[i * d + c] - mean);
            err = isnan(e) || e > err ? e : err;
        }
        const double le = fabs(lse[i] - log((double)SK));
        lse_err = isnan(le) || le > lse_err ? le : lse_err;
    }
    printf("uniform (Q = 0, %d keys): max |O - mean(V)| = %.4g, max |LSE - ln %d| = %.4g\n", SK, err, SK, lse_err);
    if (!(err < 0.02 && lse_err < 1e-3)) {
        ++fails;
        /* which columns are off: a V^T box or descriptor problem shows as a column pattern */
        int shown = 0;
        for (int c = 0; c < d && shown < 12; ++c) {
            double mean = 0;
            for (int j = 0; j < SK; ++j) mean += v[j * d + c];
            mean /= SK;
            if (!(fabs(o[c] - mean) < 0.02)) printf("  row 0 column %d: %.4f, want %.4f\n", c, o[c], mean), ++shown;
        }
    }

    /* 2. one-hot */
    int pi[ONEHOT_MAX];
    for (int i = 0; i < onehot_keys; ++i) pi[i] = (i * 37 + 11) % onehot_keys; /* 37 is prime to 64 and 128 */
    memset(q, 0, (size_t)SQ * d);
    memset(k, 0, (size_t)SK * d);
    for (int j = 0; j < onehot_keys; ++j) k[j * d + j] = flashc_float_to_e4m3(16.0f); /* the other keys stay 0 */
    for (int i = 0; i < SQ; ++i) q[i * d + pi[i % onehot_keys]] = flashc_float_to_e4m3(16.0f);
    if (run(d, q, k, vt, 1.0f / 16.0f, o, lse)) return 1;
    int right = 0, wrong = 0, unmatched = 0;
    for (int i = 0; i < SQ; ++i) {
        int best = -1;
        double best_err = INFINITY;
        for (int j = 0; j < SK; ++j) {
            double e = 0;
            for (int c = 0; c < d; ++c) {
                const double x = fabs(o[i * d + c] - v[j * d + c]);
                e = isnan(x) || x > e ? x : e;
            }
            if (e < best_err) best_err = e, best = j;
        }
        const int want = pi[i % onehot_keys];
        if (best_err < MATCH_TOL && best == want) {
            ++right;
        } else if (best_err < MATCH_TOL) {
            if (wrong++ < 16) printf("  row %d took key %d, want %d (difference %d)\n", i, best, want, best - want);
        } else {
            if (unmatched++ < 4) printf("  row %d matches no V row (nearest key %d, max error %.3g)\n", i, best, best_err);
        }
    }
    printf("one-hot (row i sees key pi(i) only): %d right, %d took another key, %d match no key\n", right, wrong,
           unmatched);
    if (right != SQ) {
        ++fails;
        if (unmatched) { /* column map: for each output column, the V column that best explains it */
            printf("  column map over rows (output column <- V column, for the first 16):");
            for (int c = 0; c < 16 && c < d; ++c) {
                int bc = -1;
                double be = INFINITY;
                for (int c2 = 0; c2 < d; ++c2) {
                    double e = 0;
                    for (int i = 0; i < SQ; ++i) e += fabs(o[i * d + c] - v[pi[i % onehot_keys] * d + c2]);
                    if (e < be) be = e, bc = c2;
                }
                printf(" %d<-%d", c, bc);
            }
            printf("\n");
        }
    }
    free(q), free(k), free(vt), free(v), free(o);
    printf("%s\n", fails ? "probe: FAIL" : "probe: pass");
    return fails != 0;
}
