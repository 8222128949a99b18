/*
 * The small public API: version, status strings, the thread-local error message, params init,
 * flashc_make_tensor, workspace query and backend selection on host memory, concurrent forward
 * calls from several threads, the rules for which memory a GPU call may read, and NO_DEVICE when a GPU backend is forced on a machine without one
 * (skipped where a device exists).
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h> /* cudaMemoryType values for the pointer rules */

#include "flashc.h"
#include "problem.h"
#include "test_util.h"

/* Small valid CPU problem: GQA, odd sequence lengths. */
#define API_B 1
#define API_SQ 3
#define API_SK 5
#define API_HQ 2
#define API_HKV 1
#define API_D 64
/* A status value past the last one the ABI pins. */
#define API_UNKNOWN_STATUS 42
#define API_NUM_STATUSES (FLASHC_STATUS_INTERNAL_ERROR + 1)

typedef struct api_problem {
    tu_tensor q, k, v, out;
    flashc_attention_params p;
} api_problem;

static tu_rng g_rng;

static void api_alloc(tu_tensor *t, flashc_dtype dt, const int64_t shape[4], int fill)
{
    if (tu_tensor_alloc(t, dt, 4, shape, NULL) != 0) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    if (fill) tu_tensor_fill_uniform(&g_rng, t, -1.0, 1.0);
}

static void api_build(api_problem *a, flashc_backend backend)
{
    const int64_t qs[4] = {API_B, API_SQ, API_HQ, API_D}, ks[4] = {API_B, API_SK, API_HKV, API_D};
    api_alloc(&a->q, FLASHC_DTYPE_BF16, qs, 1);
    api_alloc(&a->k, FLASHC_DTYPE_BF16, ks, 1);
    api_alloc(&a->v, FLASHC_DTYPE_BF16, ks, 1);
    api_alloc(&a->out, FLASHC_DTYPE_BF16, qs, 0);
    flashc_attention_params_init(&a->p);
    a->p.q = a->q.view;
    a->p.k = a->k.view;
    a->p.v = a->v.view;
    a->p.out = a->out.view;
    a->p.backend = backend;
}

static void api_free(api_problem *a)
{
    tu_tensor_free(&a->q);
    tu_tensor_free(&a->k);
    tu_tensor_free(&a->v);
    tu_tensor_free(&a->out);
}

static void test_version(void)
{
    TEST_CHECK(flashc_version() == FLASHC_VERSION, "flashc_version() = %d, header FLASHC_VERSION = %d",
               flashc_version(), FLASHC_VERSION);
    TEST_CHECK(FLASHC_VERSION == FLASHC_VERSION_MAJOR * 10000 + FLASHC_VERSION_MINOR * 100 + FLASHC_VERSION_PATCH,
               "FLASHC_VERSION encoding");
}

static void test_status_strings(void)
{
    const char *s[API_NUM_STATUSES];
    for (int i = 0; i < API_NUM_STATUSES; ++i) {
        s[i] = flashc_status_string((flashc_status)i);
        TEST_CHECK(s[i] != NULL && s[i][0] != '\0', "status %d has an empty string", i);
        if (!s[i]) s[i] = "";
    }
    for (int i = 0; i < API_NUM_STATUSES; ++i)
        for (int j = i + 1; j < API_NUM_STATUSES; ++j)
            TEST_CHECK(strcmp(s[i], s[j]) != 0, "statuses %d and %d share the string \"%s\"", i, j, s[i]);
    const flashc_status unknown[2] = {(flashc_status)API_UNKNOWN_STATUS, (flashc_status)-1};
    for (int u = 0; u < 2; ++u) {
        const char *us = flashc_status_string(unknown[u]);
        TEST_CHECK(us != NULL && us[0] != '\0', "unknown status %d: NULL or empty string", (int)unknown[u]);
        for (int i = 0; us && i < API_NUM_STATUSES; ++i)
            TEST_CHECK(strcmp(us, s[i]) != 0, "unknown status %d reads as known status %d (\"%s\")", (int)unknown[u],
                       i, us);
    }
}

static void test_last_error_cleared(void)
{
    api_problem a;
    api_build(&a, FLASHC_BACKEND_CPU);
    flashc_status st = flashc_attention_check(NULL);
    TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT && flashc_last_error()[0] != '\0',
               "a failure must leave a message (status %s)", flashc_status_string(st));
    st = flashc_attention_check(&a.p);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "valid problem: %s (%s)", flashc_status_string(st), flashc_last_error());
    TEST_CHECK(flashc_last_error()[0] == '\0', "after a success last_error must be \"\", is \"%s\"",
               flashc_last_error());

    /* Same for forward, workspace and select. */
    (void)flashc_attention_check(NULL);
    st = flashc_attention_forward(&a.p, NULL, 0, NULL);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS && flashc_last_error()[0] == '\0', "forward success clears the message: %s \"%s\"",
               flashc_status_string(st), flashc_last_error());
    size_t bytes = 1;
    (void)flashc_attention_check(NULL);
    st = flashc_attention_workspace_size(&a.p, &bytes);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS && flashc_last_error()[0] == '\0',
               "workspace success clears the message: %s \"%s\"", flashc_status_string(st), flashc_last_error());
    flashc_backend b = FLASHC_BACKEND_SM90;
    (void)flashc_attention_check(NULL);
    st = flashc_attention_select_backend(&a.p, &b);
    TEST_CHECK(st == FLASHC_STATUS_SUCCESS && flashc_last_error()[0] == '\0',
               "select success clears the message: %s \"%s\"", flashc_status_string(st), flashc_last_error());
    api_free(&a);
}

/* ---- Thread-local messages ------------------------------------------------------------------ */

typedef struct thread_arg {
    api_problem *prob;
    int which;               /* 0: breaks softcap, 1: breaks window_left */
    pthread_barrier_t *both_failed;
    flashc_status status;
    char seen[256];          /* own message after the other thread failed too */
} thread_arg;

static void *thread_main(void *raw)
{
    thread_arg *t = raw;
    flashc_attention_params p = t->prob->p; /* a private copy to break */
    if (t->which == 0)
        p.softcap = -2.0f;
    else
        p.window_left = -7;
    t->status = flashc_attention_check(&p);
    pthread_barrier_wait(t->both_failed); /* both messages are now recorded */
    snprintf(t->seen, sizeof t->seen, "%s", flashc_last_error());
    return NULL;
}

static void test_thread_local(void)
{
    api_problem a;
    api_build(&a, FLASHC_BACKEND_CPU);
    (void)flashc_attention_check(&a.p); /* main thread: "" */
    pthread_barrier_t barrier;
    if (pthread_barrier_init(&barrier, NULL, 2) != 0) {
        tu_skip("pthread_barrier_init failed: thread-local test not run");
        api_free(&a);
        return;
    }
    thread_arg args[2];
    pthread_t th[2];
    int started = 0;
    for (int i = 0; i < 2; ++i) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].prob = &a;
        args[i].which = i;
        args[i].both_failed = &barrier;
        if (pthread_create(&th[i], NULL, thread_main, &args[i]) == 0) ++started;
    }
    TEST_CHECK(started == 2, "could not start two threads");
    for (int i = 0; i < started; ++i) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    if (started == 2) {
        TEST_CHECK(args[0].status == FLASHC_STATUS_INVALID_ARGUMENT && strstr(args[0].seen, "softcap") &&
                       !strstr(args[0].seen, "window_left"),
                   "thread 0 sees its own message, got \"%s\"", args[0].seen);
        TEST_CHECK(args[1].status == FLASHC_STATUS_INVALID_ARGUMENT && strstr(args[1].seen, "window_left") &&
                       !strstr(args[1].seen, "softcap"),
                   "thread 1 sees its own message, got \"%s\"", args[1].seen);
    }
    TEST_CHECK(flashc_last_error()[0] == '\0', "main thread message changed by other threads: \"%s\"",
               flashc_last_error());
    api_free(&a);
}

/* ---- Constructors --------------------------------------------------------------------------- */

static void test_params_init(void)
{
    flashc_attention_params p, zero;
    memset(&p, 0x7b, sizeof p);
    flashc_attention_params_init(&p);
    TEST_CHECK(p.window_left == -1 && p.window_right == -1, "init: windows must be -1, got %d, %d",
               (int)p.window_left, (int)p.window_right);
    memset(&zero, 0, sizeof zero);
    zero.window_left = zero.window_right = -1;
    TEST_CHECK(memcmp(&p, &zero, sizeof p) == 0, "init: every other byte must be zero");
    TEST_CHECK(p.backend == FLASHC_BACKEND_AUTO && p.causal == 0 && p.q.data == NULL && p.softmax_scale == 0.0f,
               "init: AUTO backend, no causal, no tensors, scale 0");
    flashc_attention_params_init(NULL); /* must not crash */
    TEST_CHECK(1, "init(NULL) returned");
}

static void test_make_tensor(void)
{
    float buf[1];
    const int64_t shape[4] = {2, 3, 4, 5};
    flashc_tensor t = flashc_make_tensor(buf, FLASHC_DTYPE_F16, 4, shape);
    TEST_CHECK(t.data == buf && t.dtype == FLASHC_DTYPE_F16 && t.ndim == 4, "make_tensor: data, dtype, ndim");
    const int64_t want[4] = {60, 20, 5, 1};
    for (int i = 0; i < 4; ++i)
        TEST_CHECK(t.shape[i] == shape[i] && t.stride[i] == want[i], "make_tensor: dim %d shape %lld stride %lld, want %lld %lld",
                   i, (long long)t.shape[i], (long long)t.stride[i], (long long)shape[i], (long long)want[i]);
    const int64_t shape2[2] = {7, 3};
    t = flashc_make_tensor(buf, FLASHC_DTYPE_F32, 2, shape2);
    TEST_CHECK(t.ndim == 2 && t.stride[0] == 3 && t.stride[1] == 1, "make_tensor 2-d: strides %lld %lld",
               (long long)t.stride[0], (long long)t.stride[1]);
    /* An extent of 0 keeps the outer strides usable (no zero stride from a zero extent). */
    const int64_t shape0[3] = {2, 0, 8};
    t = flashc_make_tensor(buf, FLASHC_DTYPE_F32, 3, shape0);
    TEST_CHECK(t.ndim == 3 && t.stride[2] == 1 && t.stride[1] == 8 && t.stride[0] > 0,
               "make_tensor with a zero extent: strides %lld %lld %lld", (long long)t.stride[0], (long long)t.stride[1],
               (long long)t.stride[2]);

    /* An impossible rank is rejected by validation, naming the tensor. */
    api_problem a;
    api_build(&a, FLASHC_BACKEND_CPU);
    const int64_t big[FLASHC_MAX_DIMS + 1] = {1, 1, 1, 1, 1};
    a.p.q = flashc_make_tensor(a.q.alloc, FLASHC_DTYPE_BF16, FLASHC_MAX_DIMS + 1, big);
    flashc_status st = flashc_attention_check(&a.p);
    TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT && strstr(flashc_last_error(), "q.ndim"),
               "make_tensor with ndim %d: check returned %s (%s)", FLASHC_MAX_DIMS + 1, flashc_status_string(st),
               flashc_last_error());
    api_free(&a);
}

/* ---- Host-memory queries and backend selection ---------------------------------------------- */

static void test_cpu_queries(void)
{
    const flashc_backend asks[2] = {FLASHC_BACKEND_CPU, FLASHC_BACKEND_AUTO};
    for (int i = 0; i < 2; ++i) {
        api_problem a;
        api_build(&a, asks[i]);
        size_t bytes = 777;
        flashc_status st = flashc_attention_workspace_size(&a.p, &bytes);
        TEST_CHECK(st == FLASHC_STATUS_SUCCESS && bytes == 0, "workspace (backend %d, host memory): %s, %zu bytes (%s)",
                   (int)asks[i], flashc_status_string(st), bytes, flashc_last_error());
        flashc_backend chosen = FLASHC_BACKEND_SM90;
        st = flashc_attention_select_backend(&a.p, &chosen);
        TEST_CHECK(st == FLASHC_STATUS_SUCCESS && chosen == FLASHC_BACKEND_CPU,
                   "select (backend %d, host memory): %s, chose %d (%s)", (int)asks[i], flashc_status_string(st),
                   (int)chosen, flashc_last_error());
        api_free(&a);
    }
    api_problem a;
    api_build(&a, FLASHC_BACKEND_AUTO);
    flashc_status st = flashc_attention_select_backend(&a.p, NULL);
    TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT, "select with a NULL output: %s", flashc_status_string(st));
    st = flashc_attention_workspace_size(&a.p, NULL);
    TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT, "workspace with a NULL output: %s", flashc_status_string(st));
    flashc_backend chosen = FLASHC_BACKEND_SM80;
    st = flashc_attention_select_backend(NULL, &chosen);
    TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT && chosen == FLASHC_BACKEND_SM80,
               "select with NULL params: %s, output must stay untouched", flashc_status_string(st));
    api_free(&a);
}

/* A GPU backend on a machine without a device: NO_DEVICE, nothing written. Where a device
   exists the dispatcher goes further (host memory is refused): that assertion is skipped. */
static void test_no_device(void)
{
    const flashc_backend gpus[2] = {FLASHC_BACKEND_SM80, FLASHC_BACKEND_SM90};
    const char *names[2] = {"SM80", "SM90"};
    for (int i = 0; i < 2; ++i) {
        api_problem a;
        api_build(&a, gpus[i]);
        void *out0 = malloc(a.out.bytes);
        if (!out0) {
            fprintf(stderr, "out of host memory\n");
            exit(1);
        }
        memcpy(out0, a.out.alloc, a.out.bytes);
        flashc_status st = flashc_attention_check(&a.p);
        if (st != FLASHC_STATUS_NO_DEVICE) {
            TEST_CHECK(st != FLASHC_STATUS_MISALIGNED && st != FLASHC_STATUS_DTYPE_MISMATCH,
                       "%s on aligned host buffers: %s (%s)", names[i], flashc_status_string(st), flashc_last_error());
            tu_skip("%s forced: a CUDA device is present (status %s), NO_DEVICE not asserted", names[i],
                    flashc_status_string(st));
        } else {
            TEST_CHECK(flashc_last_error()[0] != '\0', "%s: NO_DEVICE without a message", names[i]);
            size_t bytes = 99;
            st = flashc_attention_workspace_size(&a.p, &bytes);
            TEST_CHECK(st == FLASHC_STATUS_NO_DEVICE && bytes == 99, "%s workspace: %s", names[i],
                       flashc_status_string(st));
            flashc_backend chosen = FLASHC_BACKEND_AUTO;
            st = flashc_attention_select_backend(&a.p, &chosen);
            TEST_CHECK(st == FLASHC_STATUS_NO_DEVICE && chosen == FLASHC_BACKEND_AUTO, "%s select: %s", names[i],
                       flashc_status_string(st));
            st = flashc_attention_forward(&a.p, NULL, 0, NULL);
            TEST_CHECK(st == FLASHC_STATUS_NO_DEVICE, "%s forward: %s (%s)", names[i], flashc_status_string(st),
                       flashc_last_error());
            TEST_CHECK(memcmp(out0, a.out.alloc, a.out.bytes) == 0, "%s forward wrote out without a device", names[i]);
        }
        free(out0);
        api_free(&a);
    }
    flashc_release_caches(); /* harmless without a device */
    TEST_CHECK(1, "flashc_release_caches returned");
}

/* ---- Concurrent calls ----------------------------------------------------------------------- */

/* Threads running forward side by side on their own problems (and releasing the caches between calls)
   get the bytes a lone call gets: no state is shared between calls but the caches, which are
   thread-safe. Built with ThreadSanitizer it watches validation, dispatch and the CPU backend for
   data races (the GPU paths' device cache is not reached here: CPU calls never query a device). */
#define API_THREADS 4
#define API_ROUNDS 3

typedef struct forward_arg {
    api_problem prob;
    void *want;                /* out of a lone call */
    flashc_status status;
    int mismatches;
} forward_arg;

static void *forward_main(void *raw)
{
    forward_arg *t = raw;
    for (int r = 0; r < API_ROUNDS; ++r) {
        tu_poison(t->prob.out.alloc, FLASHC_DTYPE_BF16, t->prob.out.span);
        t->status = flashc_attention_forward(&t->prob.p, NULL, 0, NULL);
        if (t->status != FLASHC_STATUS_SUCCESS) return NULL;
        t->mismatches += memcmp(t->prob.out.alloc, t->want, t->prob.out.bytes) != 0;
        flashc_release_caches();
    }
    return NULL;
}

static void test_concurrent_forward(void)
{
    forward_arg args[API_THREADS];
    int built = 0;
    for (; built < API_THREADS; ++built) {
        forward_arg *t = &args[built];
        memset(t, 0, sizeof *t);
        api_build(&t->prob, FLASHC_BACKEND_CPU); /* fresh random inputs per thread */
        t->want = malloc(t->prob.out.bytes);
        if (!t->want) {
            api_free(&t->prob);
            break;
        }
        const flashc_status st = flashc_attention_forward(&t->prob.p, NULL, 0, NULL);
        TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "lone forward %d: %s (%s)", built, flashc_status_string(st),
                   flashc_last_error());
        memcpy(t->want, t->prob.out.alloc, t->prob.out.bytes);
    }
    pthread_t th[API_THREADS];
    int started = 0;
    if (built == API_THREADS)
        for (; started < API_THREADS; ++started)
            if (pthread_create(&th[started], NULL, forward_main, &args[started]) != 0) break;
    for (int i = 0; i < started; ++i) pthread_join(th[i], NULL);
    TEST_CHECK(started == API_THREADS, "could not start %d threads (%d built, %d started)", API_THREADS, built,
               started);
    if (started == API_THREADS) {
        for (int i = 0; i < API_THREADS; ++i) {
            TEST_CHECK(args[i].status == FLASHC_STATUS_SUCCESS, "thread %d forward: %s", i,
                       flashc_status_string(args[i].status));
            TEST_CHECK(args[i].mismatches == 0, "thread %d: %d of %d concurrent results differ from its lone call", i,
                       args[i].mismatches, API_ROUNDS);
        }
    }
    for (int i = 0; i < built; ++i) {
        free(args[i].want);
        api_free(&args[i].prob);
    }
}

/* ---- Which memory a GPU call may read ------------------------------------------------------- */

/* The rules behind the GPU paths' pointer check (src/api.c), on synthetic attributes: a single-GPU
   machine cannot make another device's memory, and the mistake it guards against (a tensor on
   cuda:1 while cuda:0 is current) would fault the context, not return an error. */
static void test_gpu_memory_rules(void)
{
    const int here = 0, other = 1;
    TEST_CHECK(flashc_gpu_memory_problem(cudaMemoryTypeDevice, here, 0, here) == NULL,
               "the current device's memory is readable");
    const char *why = flashc_gpu_memory_problem(cudaMemoryTypeDevice, other, 0, here);
    TEST_CHECK(why && strstr(why, "another CUDA device"), "another device's memory: \"%s\"", why ? why : "(null)");
    TEST_CHECK(flashc_gpu_memory_problem(cudaMemoryTypeManaged, other, 0, here) == NULL,
               "managed memory is readable from any device");
    TEST_CHECK(flashc_gpu_memory_problem(cudaMemoryTypeHost, other, 1, here) == NULL,
               "mapped pinned host memory is readable from any device");
    why = flashc_gpu_memory_problem(cudaMemoryTypeHost, here, 0, here);
    TEST_CHECK(why && strstr(why, "device address differs"), "pinned host memory at another device address: \"%s\"",
               why ? why : "(null)");
    why = flashc_gpu_memory_problem(cudaMemoryTypeUnregistered, -1, 0, here);
    TEST_CHECK(why && strstr(why, "host memory"), "pageable host memory: \"%s\"", why ? why : "(null)");

    /* where the host stands: only device memory and unanswered queries are off limits to it */
    TEST_CHECK(flashc_memory_kind_of(cudaSuccess, cudaMemoryTypeDevice) == FLASHC_MEMORY_DEVICE, "device memory");
    TEST_CHECK(flashc_memory_kind_of(cudaSuccess, cudaMemoryTypeManaged) == FLASHC_MEMORY_HOST, "managed memory");
    TEST_CHECK(flashc_memory_kind_of(cudaSuccess, cudaMemoryTypeUnregistered) == FLASHC_MEMORY_HOST, "pageable");
    TEST_CHECK(flashc_memory_kind_of(cudaErrorNoDevice, 0) == FLASHC_MEMORY_HOST &&
                   flashc_memory_kind_of(cudaErrorInsufficientDriver, 0) == FLASHC_MEMORY_HOST,
               "no usable CUDA: every pointer is host memory");
    TEST_CHECK(flashc_memory_kind_of(cudaErrorInvalidValue, 0) == FLASHC_MEMORY_HOST, "a pointer CUDA never saw");
    TEST_CHECK(flashc_memory_kind_of(cudaErrorIllegalAddress, 0) == FLASHC_MEMORY_UNKNOWN &&
                   flashc_memory_kind_of(cudaErrorLaunchFailure, 0) == FLASHC_MEMORY_UNKNOWN,
               "a sticky error: the pointer's place is unknown (neither read on the host nor launched on)");
}

/* ---- Where a GPU call's memory lives (needs a device; skipped without one) -------------------- */

static int cuda_check(cudaError_t e, const char *what)
{
    return TEST_CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
}

/* out of *p on the device, downloaded into host (out.bytes); 0 on any failure */
static int gpu_forward(const flashc_attention_params *p, void *dout, void *host, size_t bytes, const char *what)
{
    size_t ws = 0;
    flashc_status st = flashc_attention_workspace_size(p, &ws);
    void *dws = NULL;
    if (st == FLASHC_STATUS_SUCCESS && ws > 0 && !cuda_check(cudaMalloc(&dws, ws), "cudaMalloc workspace")) return 0;
    if (st == FLASHC_STATUS_SUCCESS) st = flashc_attention_forward(p, dws, ws, NULL);
    int ok = TEST_CHECK(st == FLASHC_STATUS_SUCCESS, "%s: %s (%s)", what, flashc_status_string(st), flashc_last_error());
    ok = ok && cuda_check(cudaGetLastError(), what) && cuda_check(cudaDeviceSynchronize(), what) &&
         cuda_check(cudaMemcpy(host, dout, bytes, cudaMemcpyDeviceToHost), "download out");
    if (dws) cudaFree(dws);
    return ok;
}

/* Device, managed and mapped pinned memory are read (bit-identical results); pageable host memory
   and another device's memory are refused with INVALID_ARGUMENT naming the argument, before any
   launch (a kernel touching either would fault the context). */
static void test_gpu_pointer_locations(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        (void)cudaGetLastError();
        tu_skip("no CUDA device: GPU pointer locations not checked");
        return;
    }
    api_problem a;
    api_build(&a, FLASHC_BACKEND_SM80);
    const size_t qb = a.q.bytes, kb = a.k.bytes, vb = a.v.bytes, ob = a.out.bytes;
    void *dq = NULL, *dk = NULL, *dv = NULL, *dout = NULL, *mk = NULL, *hv = NULL, *q1 = NULL;
    uint8_t *want = malloc(ob), *got = malloc(ob);
    if (!want || !got || !cuda_check(cudaMalloc(&dq, qb), "cudaMalloc q") || !cuda_check(cudaMalloc(&dk, kb), "cudaMalloc k") ||
        !cuda_check(cudaMalloc(&dv, vb), "cudaMalloc v") || !cuda_check(cudaMalloc(&dout, ob), "cudaMalloc out") ||
        !cuda_check(cudaMemcpy(dq, a.q.alloc, qb, cudaMemcpyHostToDevice), "upload q") ||
        !cuda_check(cudaMemcpy(dk, a.k.alloc, kb, cudaMemcpyHostToDevice), "upload k") ||
        !cuda_check(cudaMemcpy(dv, a.v.alloc, vb, cudaMemcpyHostToDevice), "upload v"))
        goto done;
    flashc_attention_params p = a.p;
    p.q.data = dq;
    p.k.data = dk;
    p.v.data = dv;
    p.out.data = dout;
    if (flashc_attention_check(&p) == FLASHC_STATUS_NOT_SUPPORTED) { /* e.g. a GPU older than sm_80 */
        tu_skip("the portable path does not run here (%s): GPU pointer locations not checked", flashc_last_error());
        goto done;
    }
    if (!gpu_forward(&p, dout, want, ob, "device memory")) goto done;

    /* pageable host memory: refused, nothing launched */
    flashc_attention_params bad = p;
    bad.q.data = a.q.alloc;
    flashc_status st = flashc_attention_forward(&bad, NULL, 0, NULL);
    TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT && strstr(flashc_last_error(), "q.data") &&
                   strstr(flashc_last_error(), "host memory"),
               "pageable q on SM80: %s (%s)", flashc_status_string(st), flashc_last_error());

    /* managed k, mapped pinned v: read, the same bytes out */
    if (cuda_check(cudaMallocManaged(&mk, kb, cudaMemAttachGlobal), "cudaMallocManaged k") &&
        cuda_check(cudaHostAlloc(&hv, vb, cudaHostAllocMapped), "cudaHostAlloc v")) {
        memcpy(mk, a.k.alloc, kb);
        memcpy(hv, a.v.alloc, vb);
        flashc_attention_params mixed = p;
        mixed.k.data = mk;
        mixed.v.data = hv;
        if (cuda_check(cudaMemset(dout, 0xff, ob), "poison out") && gpu_forward(&mixed, dout, got, ob, "managed k, mapped v"))
            TEST_CHECK(memcmp(want, got, ob) == 0, "managed k and mapped pinned v give other bytes than device memory");
    }

    /* another device's memory: refused, naming both devices */
    int here = 0;
    if (ndev < 2) {
        tu_skip("one CUDA device: another device's memory not checked");
    } else if (cuda_check(cudaGetDevice(&here), "cudaGetDevice")) {
        const int there = here == 0 ? 1 : 0;
        char named[32];
        snprintf(named, sizeof named, "device %d", there);
        if (cuda_check(cudaSetDevice(there), "cudaSetDevice")) {
            const int made = cuda_check(cudaMalloc(&q1, qb), "cudaMalloc q on the other device");
            cuda_check(cudaSetDevice(here), "cudaSetDevice back");
            if (made) {
                bad = p;
                bad.q.data = q1;
                st = flashc_attention_forward(&bad, NULL, 0, NULL);
                TEST_CHECK(st == FLASHC_STATUS_INVALID_ARGUMENT && strstr(flashc_last_error(), "q.data") &&
                               strstr(flashc_last_error(), named),
                           "q on %s: %s (%s)", named, flashc_status_string(st), flashc_last_error());
            }
        }
    }
done:
    cudaFree(dq);
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(dout);
    cudaFree(mk);
    cudaFreeHost(hv);
    cudaFree(q1);
    free(want);
    free(got);
    api_free(&a);
}

int main(void)
{
    tu_rng_init(&g_rng, tu_seed());
    test_version();
    test_status_strings();
    test_last_error_cleared();
    test_thread_local();
    test_concurrent_forward();
    test_gpu_memory_rules();
    test_gpu_pointer_locations();
    test_params_init();
    test_make_tensor();
    test_cpu_queries();
    test_no_device();
    return tu_summary();
}
