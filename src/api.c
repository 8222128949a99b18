/*
 * Public entry points: error reporting, version, small constructors, and the dispatcher that
 * validates a call, picks a backend and hands the normalised problem to it.
 *
 * Order inside every call (tests rely on it):
 *   flashc_validate  ->  backend selection  ->  [GPU] flashc_validate_gpu (alignment)
 *   -> device query -> pointer locations -> the path's check -> workspace -> forward.
 * Nothing is written before the last step.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "flashc.h"
#include "launch.h"
#include "problem.h"

#define FLASHC_ERROR_CAPACITY 1024
#define FLASHC_MAX_DEVICES 64

static _Thread_local char g_last_error[FLASHC_ERROR_CAPACITY];

flashc_status flashc_error(flashc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_last_error, sizeof g_last_error, fmt, ap);
    va_end(ap);
    return status;
}

static void clear_error(void) { g_last_error[0] = '\0'; }

FLASHC_API const char *flashc_last_error(void) { return g_last_error; }

FLASHC_API int flashc_version(void) { return FLASHC_VERSION; }

FLASHC_API const char *flashc_status_string(flashc_status status)
{
    switch (status) {
    case FLASHC_STATUS_SUCCESS: return "FLASHC_STATUS_SUCCESS";
    case FLASHC_STATUS_INVALID_ARGUMENT: return "FLASHC_STATUS_INVALID_ARGUMENT";
    case FLASHC_STATUS_DTYPE_MISMATCH: return "FLASHC_STATUS_DTYPE_MISMATCH";
    case FLASHC_STATUS_MISALIGNED: return "FLASHC_STATUS_MISALIGNED";
    case FLASHC_STATUS_NOT_SUPPORTED: return "FLASHC_STATUS_NOT_SUPPORTED";
    case FLASHC_STATUS_WORKSPACE_TOO_SMALL: return "FLASHC_STATUS_WORKSPACE_TOO_SMALL";
    case FLASHC_STATUS_NO_DEVICE: return "FLASHC_STATUS_NO_DEVICE";
    case FLASHC_STATUS_CUDA_ERROR: return "FLASHC_STATUS_CUDA_ERROR";
    case FLASHC_STATUS_OUT_OF_MEMORY: return "FLASHC_STATUS_OUT_OF_MEMORY";
    case FLASHC_STATUS_INTERNAL_ERROR: return "FLASHC_STATUS_INTERNAL_ERROR";
    }
    return "FLASHC_STATUS_UNKNOWN";
}

FLASHC_API void flashc_attention_params_init(flashc_attention_params *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->window_left = -1;
    p->window_right = -1;
}

FLASHC_API flashc_tensor flashc_make_tensor(void *data, flashc_dtype dtype, int32_t ndim,
                                            const int64_t *shape)
{
    flashc_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dtype;
    if (ndim < 0 || ndim > FLASHC_MAX_DIMS || (!shape && ndim > 0)) {
        t.ndim = -1; /* rejected by validation with a message */
        return t;
    }
    t.ndim = ndim;
    int64_t stride = 1;
    for (int i = ndim - 1; i >= 0; --i) {
        t.shape[i] = shape[i];
        t.stride[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
    return t;
}

/* ---- CUDA queries ------------------------------------------------------------------------ */

flashc_memory_kind flashc_memory_kind_of(int query_error, int memory_type)
{
    switch (query_error) {
    case cudaSuccess: return memory_type == cudaMemoryTypeDevice ? FLASHC_MEMORY_DEVICE : FLASHC_MEMORY_HOST;
    /* a pointer CUDA never saw (older runtimes' answer for pageable memory) */
    case cudaErrorInvalidValue:
    /* no usable CUDA in this process: nothing can be device memory */
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInitializationError:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice: return FLASHC_MEMORY_HOST;
    /* CUDA works but cannot answer (a sticky error after a kernel fault, ...): reading the
       pointer on the host could fault if it is device memory, so it counts as neither */
    default: return FLASHC_MEMORY_UNKNOWN;
    }
}

flashc_memory_kind flashc_pointer_kind(const void *ptr, int *query_error)
{
    struct cudaPointerAttributes attr;
    if (query_error) *query_error = 0;
    if (!ptr) return FLASHC_MEMORY_HOST;
    memset(&attr, 0, sizeof attr);
    const cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    if (err != cudaSuccess) (void)cudaGetLastError();
    if (query_error) *query_error = (int)err;
    return flashc_memory_kind_of((int)err, (int)attr.type);
}

int flashc_pointer_is_host(const void *ptr) { return flashc_pointer_kind(ptr, NULL) == FLASHC_MEMORY_HOST; }

/* A pointer whose place CUDA cannot tell: CUDA_ERROR, naming it and CUDA's answer. */
static flashc_status unknown_memory_error(const char *name, int query_error)
{
    return flashc_error(FLASHC_STATUS_CUDA_ERROR, "%s: CUDA cannot tell whether it is host or device memory (%s)",
                        name, cudaGetErrorString((cudaError_t)query_error));
}

/* Why kernels on `device` cannot read memory of this kind, or NULL when they can: that device's
   own memory, managed memory, or pinned host memory whose device address is its host address
   (always so with unified addressing, unless registered on a device that cannot use host
   pointers). Another device's memory would fault (a sticky error that ends the context): peer
   access is not assumed. Pageable host memory is refused even where the GPU could read it (HMM,
   ATS): such reads are far slower and not what a caller of a GPU path means. Pure, for tests:
   memory_type is a cudaMemoryType, ptr_device the owner's ordinal, mapped 1 if devicePointer is
   the pointer itself. */
const char *flashc_gpu_memory_problem(int memory_type, int ptr_device, int mapped, int device)
{
    switch (memory_type) {
    case cudaMemoryTypeDevice:
        return ptr_device == device ? NULL : "is memory of another CUDA device than the current one";
    case cudaMemoryTypeManaged: return NULL;
    case cudaMemoryTypeHost:
        return mapped ? NULL
                      : "is pinned host memory whose device address differs from its host address (pass the address "
                        "cudaHostGetDevicePointer gives)";
    default: return "is pageable host memory, which GPU calls do not take (use device, managed or pinned host memory)";
    }
}

/* SUCCESS where kernels on `device` may read ptr (NULL included); INVALID_ARGUMENT naming `name`
   and why not; CUDA_ERROR where CUDA cannot tell (a sticky error from an earlier fault, no
   context). */
static flashc_status check_gpu_pointer(const char *name, const void *ptr, int device)
{
    struct cudaPointerAttributes attr;
    if (!ptr) return FLASHC_STATUS_SUCCESS;
    memset(&attr, 0, sizeof attr);
    const cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    if (err == cudaErrorInvalidValue) { /* a pointer CUDA has never seen: pageable host memory */
        (void)cudaGetLastError();
        attr.type = cudaMemoryTypeUnregistered;
    } else if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return flashc_error(FLASHC_STATUS_CUDA_ERROR, "%s: cudaPointerGetAttributes failed: %s", name,
                            cudaGetErrorString(err));
    }
    const char *why = flashc_gpu_memory_problem((int)attr.type, attr.device, attr.devicePointer == ptr, device);
    if (!why) return FLASHC_STATUS_SUCCESS;
    if (attr.type == cudaMemoryTypeDevice)
        return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT, "%s %s: it lives on device %d, the call runs on device "
                            "%d (make that device current; peer memory is not read)", name, why, attr.device, device);
    return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT, "%s %s", name, why);
}

/* Device attributes are cached per ordinal: they never change while the process runs. Calls may
   come from many threads: an entry is written once, under the lock, before its flag is published
   (release); a reader that sees the flag (acquire) reads a complete entry without the lock. */
static flashc_device_info g_devices[FLASHC_MAX_DEVICES];
static atomic_int g_device_known[FLASHC_MAX_DEVICES];
static pthread_mutex_t g_device_lock = PTHREAD_MUTEX_INITIALIZER;

static flashc_status current_device(flashc_device_info *out)
{
    int dev = -1;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return flashc_error(FLASHC_STATUS_NO_DEVICE, "no usable CUDA device: %s", cudaGetErrorString(err));
    }
    if (dev >= 0 && dev < FLASHC_MAX_DEVICES && atomic_load_explicit(&g_device_known[dev], memory_order_acquire)) {
        *out = g_devices[dev];
        return FLASHC_STATUS_SUCCESS;
    }
    flashc_device_info info;
    memset(&info, 0, sizeof info);
    info.device = dev;
    if ((err = cudaDeviceGetAttribute(&info.cc_major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&info.cc_minor, cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&info.num_sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&info.max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&info.l2_bytes, cudaDevAttrL2CacheSize, dev)) != cudaSuccess) {
        (void)cudaGetLastError();
        return flashc_error(FLASHC_STATUS_NO_DEVICE, "cannot query CUDA device %d: %s", dev, cudaGetErrorString(err));
    }
    /* Peak DRAM bandwidth, for the planners' bandwidth rules; a driver that does not report the
       memory clock leaves it 0 (unknown), which the rules treat as before they knew it. */
    int mem_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess && mem_khz > 0 &&
        bus_bits > 0)
        info.dram_bytes_per_s = 2.0 * mem_khz * 1e3 * (bus_bits / 8);
    else
        (void)cudaGetLastError();
    if (dev >= 0 && dev < FLASHC_MAX_DEVICES) {
        pthread_mutex_lock(&g_device_lock);
        if (!atomic_load_explicit(&g_device_known[dev], memory_order_relaxed)) {
            g_devices[dev] = info;
            atomic_store_explicit(&g_device_known[dev], 1, memory_order_release);
        }
        pthread_mutex_unlock(&g_device_lock);
    }
    *out = info;
    return FLASHC_STATUS_SUCCESS;
}

/* ---- Dispatch ---------------------------------------------------------------------------- */

typedef struct named_pointer {
    const char *name;
    const void *ptr;
} named_pointer;

#define FLASHC_NUM_DATA_POINTERS 14

static void data_pointers(const flashc_problem *p, named_pointer out[FLASHC_NUM_DATA_POINTERS])
{
    const named_pointer list[FLASHC_NUM_DATA_POINTERS] = {
        {"q.data", p->q}, {"k.data", p->k}, {"v.data", p->v}, {"out.data", p->o},
        {"lse.data", p->lse}, {"cu_seqlens_q", p->cu_seqlens_q}, {"cu_seqlens_k", p->cu_seqlens_k},
        {"seqused_k", p->seqused_k}, {"page_table", p->page_table}, {"q_descale.data", p->q_descale},
        {"k_descale.data", p->k_descale}, {"v_descale.data", p->v_descale}, {"bias.data", p->bias},
        {"alibi_slopes.data", p->alibi}};
    memcpy(out, list, sizeof list);
}

static flashc_status check_cpu_pointers(const flashc_problem *p)
{
    named_pointer ptrs[FLASHC_NUM_DATA_POINTERS];
    data_pointers(p, ptrs);
    for (int i = 0; i < FLASHC_NUM_DATA_POINTERS; ++i) {
        int err;
        const flashc_memory_kind kind = flashc_pointer_kind(ptrs[i].ptr, &err);
        if (kind == FLASHC_MEMORY_UNKNOWN) return unknown_memory_error(ptrs[i].name, err);
        if (kind == FLASHC_MEMORY_DEVICE)
            return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT,
                                "%s is device memory, but the CPU backend reads host memory", ptrs[i].name);
    }
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status check_gpu_pointers(const flashc_problem *p, int device)
{
    named_pointer ptrs[FLASHC_NUM_DATA_POINTERS];
    data_pointers(p, ptrs);
    for (int i = 0; i < FLASHC_NUM_DATA_POINTERS; ++i) {
        const flashc_status st = check_gpu_pointer(ptrs[i].name, ptrs[i].ptr, device);
        if (st != FLASHC_STATUS_SUCCESS) return st;
    }
    return FLASHC_STATUS_SUCCESS;
}

static int is_gpu_backend(flashc_backend b) { return b == FLASHC_BACKEND_SM80 || b == FLASHC_BACKEND_SM90; }

/* Decode (a few query tokens over a long cache) is bandwidth-bound: what counts is reading K/V
   once, with the whole GPU busy. The portable path packs the query heads that share a KV head
   into one tile and splits the keys across blocks; the Hopper forward does neither, so with
   GQA it re-reads K/V per query head, and with few (batch, head) pairs it leaves SMs idle. (The
   Hopper fp8 decode tile does both, for fp8 d128 V^T at 33-64 rows per KV head, where the
   portable tiles' f16 MMAs bind, and at 17-32 rows over long caches: flashc_sm90_decode_route,
   asked first.)
   Measured on the H200 (docs/notes.md): b=64, h 32/8, s_k 8k, s_q 1: Hopper 1370 GB/s,
   portable 3314. Without GQA and with many (batch, head) pairs the Hopper path was ahead
   (b=128, h 32/32: 4177 against the portable 64-row ring's 3329) until the portable split-key
   tile took 16-bit decode of <= 16 rows on non-paged K/V (session 6, d128: 4516 / 4520 GB/s at
   4k / 32k, Hopper 4189 / 4159); d64 and d256 there are unmeasured and keep the Hopper path.
   Paged K/V and seqused_k (a KV cache) stay on the portable path, whose decode tiles were measured
   on them; the Hopper path takes them only from FLASHC_DECODE_MAX_QUERIES + 1 query tokens on
   (chunked prefill over a cache). */
#define FLASHC_DECODE_MAX_QUERIES 16
#define FLASHC_DECODE_SPLIT_KEY_D 128
static int prefer_portable_decode(const flashc_problem *p, const flashc_device_info *dev)
{
    const int group = p->h_kv > 0 ? p->h_q / p->h_kv : 1;
    if (p->s_q > FLASHC_DECODE_MAX_QUERIES) return 0;
    if (p->kv_layout == FLASHC_KV_PAGED || p->seqused_k) return 1;
    if (p->d == FLASHC_DECODE_SPLIT_KEY_D) return 1;
    return group > 1 || (int64_t)p->b * p->h_q < 2 * (int64_t)dev->num_sms;
}

/* Resolve AUTO and confirm the chosen GPU path has a kernel for *p on the current device. */
static flashc_status select_backend(const flashc_problem *p, flashc_backend *chosen, flashc_device_info *dev)
{
    flashc_backend want = p->backend;
    flashc_status st;
    if (want == FLASHC_BACKEND_AUTO) {
        int err;
        const flashc_memory_kind kind = flashc_pointer_kind(p->q, &err);
        if (kind == FLASHC_MEMORY_UNKNOWN) return unknown_memory_error("q.data", err);
        want = kind == FLASHC_MEMORY_HOST ? FLASHC_BACKEND_CPU : FLASHC_BACKEND_SM90;
    }
    if (want == FLASHC_BACKEND_CPU) {
        *chosen = FLASHC_BACKEND_CPU;
        return check_cpu_pointers(p);
    }
    if ((st = flashc_validate_gpu(p)) != FLASHC_STATUS_SUCCESS) return st;
    if ((st = current_device(dev)) != FLASHC_STATUS_SUCCESS) return st;
    if ((st = check_gpu_pointers(p, dev->device)) != FLASHC_STATUS_SUCCESS) return st;

    if (p->backend == FLASHC_BACKEND_AUTO) {
        /* Hopper path first where it has a kernel and suits the shape; the portable path covers
           the rest, and decode shapes it serves better. */
        char sm90_why[FLASHC_ERROR_CAPACITY] = "";
        if (flashc_sm90_decode_route(p, dev)) { /* fp8 decode of 17-64 rows per KV head: QGMMA */
            *chosen = FLASHC_BACKEND_SM90;
            return FLASHC_STATUS_SUCCESS;
        }
        if (dev->cc_major == 9 && dev->cc_minor == 0 && !prefer_portable_decode(p, dev)) {
            if (flashc_sm90_check(p, dev) == FLASHC_STATUS_SUCCESS) {
                *chosen = FLASHC_BACKEND_SM90;
                return FLASHC_STATUS_SUCCESS;
            }
            snprintf(sm90_why, sizeof sm90_why, "%s", g_last_error);
        }
        st = flashc_sm80_check(p, dev);
        if (st == FLASHC_STATUS_SUCCESS) {
            *chosen = FLASHC_BACKEND_SM80;
            return st;
        }
        if (sm90_why[0]) {
            char sm80_why[FLASHC_ERROR_CAPACITY];
            snprintf(sm80_why, sizeof sm80_why, "%s", g_last_error);
            return flashc_error(st, "no GPU path supports this call: %s; %s", sm90_why, sm80_why);
        }
        return st;
    }
    *chosen = want;
    return want == FLASHC_BACKEND_SM90 ? flashc_sm90_check(p, dev) : flashc_sm80_check(p, dev);
}

/* Validate and select: the common front of every entry point. */
static flashc_status prepare(const flashc_attention_params *params, flashc_problem *prob,
                             flashc_backend *chosen, flashc_device_info *dev)
{
    flashc_status st;
    clear_error();
    memset(dev, 0, sizeof *dev);
    if ((st = flashc_validate(params, prob)) != FLASHC_STATUS_SUCCESS) return st;
    return select_backend(prob, chosen, dev);
}

static size_t workspace_for(const flashc_problem *p, flashc_backend b, const flashc_device_info *dev)
{
    if (b == FLASHC_BACKEND_SM80) return flashc_sm80_workspace_size(p, dev);
    if (b == FLASHC_BACKEND_SM90) return flashc_sm90_workspace_size(p, dev);
    return 0;
}

FLASHC_API flashc_status flashc_attention_check(const flashc_attention_params *params)
{
    flashc_problem prob;
    flashc_backend chosen;
    flashc_device_info dev;
    return prepare(params, &prob, &chosen, &dev);
}

FLASHC_API flashc_status flashc_attention_select_backend(const flashc_attention_params *params,
                                                         flashc_backend *backend)
{
    flashc_problem prob;
    flashc_backend chosen = FLASHC_BACKEND_AUTO;
    flashc_device_info dev;
    if (!backend) {
        clear_error();
        return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT, "backend (output pointer) is NULL");
    }
    flashc_status st = prepare(params, &prob, &chosen, &dev);
    if (st == FLASHC_STATUS_SUCCESS) *backend = chosen;
    return st;
}

FLASHC_API flashc_status flashc_attention_workspace_size(const flashc_attention_params *params, size_t *bytes)
{
    flashc_problem prob;
    flashc_backend chosen = FLASHC_BACKEND_AUTO;
    flashc_device_info dev;
    if (!bytes) {
        clear_error();
        return flashc_error(FLASHC_STATUS_INVALID_ARGUMENT, "bytes (output pointer) is NULL");
    }
    flashc_status st = prepare(params, &prob, &chosen, &dev);
    if (st == FLASHC_STATUS_SUCCESS) *bytes = workspace_for(&prob, chosen, &dev);
    return st;
}

FLASHC_API flashc_status flashc_attention_forward(const flashc_attention_params *params, void *workspace,
                                                  size_t workspace_bytes, struct CUstream_st *stream)
{
    flashc_problem prob;
    flashc_backend chosen = FLASHC_BACKEND_AUTO;
    flashc_device_info dev;
    flashc_status st = prepare(params, &prob, &chosen, &dev);
    if (st != FLASHC_STATUS_SUCCESS) return st;
    if (chosen == FLASHC_BACKEND_CPU) return flashc_cpu_forward(&prob);
    if (!is_gpu_backend(chosen))
        return flashc_error(FLASHC_STATUS_INTERNAL_ERROR, "dispatcher chose backend %d", (int)chosen);

    size_t need = workspace_for(&prob, chosen, &dev);
    if (need > 0 && (!workspace || workspace_bytes < need))
        return flashc_error(FLASHC_STATUS_WORKSPACE_TOO_SMALL,
                            "workspace: this call needs %zu bytes of device memory, got %zu%s", need,
                            workspace ? workspace_bytes : (size_t)0, workspace ? "" : " (NULL)");
    if (need > 0 && (st = check_gpu_pointer("workspace", workspace, dev.device)) != FLASHC_STATUS_SUCCESS) return st;
    if (chosen == FLASHC_BACKEND_SM90)
        return flashc_sm90_forward(&prob, &dev, workspace, workspace_bytes, stream);
    return flashc_sm80_forward(&prob, &dev, workspace, workspace_bytes, stream);
}

/* flashc_sm80_route's problem: validated (no pointer checks, no device query) and accepted by
   flashc_sm80_check on *dev; 0 if not */
static int sm80_route_problem(const flashc_attention_params *params, const flashc_device_info *dev,
                              flashc_problem *prob)
{
    clear_error();
    return flashc_validate(params, prob) == FLASHC_STATUS_SUCCESS && flashc_validate_gpu(prob) == FLASHC_STATUS_SUCCESS &&
           flashc_sm80_check(prob, dev) == FLASHC_STATUS_SUCCESS;
}

int flashc_sm80_route(const flashc_attention_params *params, const flashc_device_info *dev)
{
    flashc_problem prob;
    return sm80_route_problem(params, dev, &prob) ? flashc_sm80_plan_variant(&prob, dev) : -1;
}

size_t flashc_sm80_route_workspace(const flashc_attention_params *params, const flashc_device_info *dev)
{
    flashc_problem prob;
    return sm80_route_problem(params, dev, &prob) ? flashc_sm80_workspace_size(&prob, dev) : (size_t)-1;
}

FLASHC_API void flashc_release_caches(void) { flashc_sm90_release_caches(); }
