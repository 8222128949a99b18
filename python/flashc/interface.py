"""flash-attn 3 style functions over libflashc (ctypes, no compiled glue).

Tensors come in as torch tensors (CUDA or CPU), numpy arrays, objects with
__cuda_array_interface__ (CuPy, Numba) or DLPack. Nothing is copied: pointers and strides (in
elements) go straight to the C library, whose validation is the single source of truth; the
only Python-side checks are those the C API cannot make (lengths of the int32 index arrays it
receives as raw pointers, and what a flashc_tensor cannot express).

Host memory runs the CPU reference backend (synchronously); device memory runs a GPU path on the
current CUDA stream, with no host synchronisation and no allocation besides the outputs (and the
workspace when the library asks for one), so calls can be captured in a CUDA graph.
"""
import ctypes
import sys

from . import _lib
from ._lib import FlashcError

__all__ = [
    "flash_attn_func",
    "flash_attn_qkvpacked_func",
    "flash_attn_varlen_func",
    "flash_attn_with_kvcache",
    "attention",
    "select_backend",
]

# flashc dtype codes by canonical dtype name (torch's and numpy/ml_dtypes' names agree).
_DTYPES = {
    "float32": _lib.DTYPE_F32,
    "float16": _lib.DTYPE_F16,
    "bfloat16": _lib.DTYPE_BF16,
    "float8_e4m3fn": _lib.DTYPE_FP8_E4M3,
    "int8": _lib.DTYPE_INT8,
}
_EIGHT_BIT = ("float8_e4m3fn", "int8")
_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "int8": 1}
_DTYPE_ALIASES = {"half": "float16", "fp16": "float16", "bf16": "bfloat16", "float": "float32",
                  "fp32": "float32", "fp8": "float8_e4m3fn", "float8_e4m3": "float8_e4m3fn",
                  "e4m3": "float8_e4m3fn"}
# __cuda_array_interface__ typestrs of the plain dtypes ('<V2'-style ones need the object's dtype).
_TYPESTRS = {"f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8", "u1": "uint8",
             "i4": "int32", "i8": "int64"}
# DLPack device types (dlpack.h: kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged).
_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13


def _invalid(msg):
    return FlashcError(_lib.STATUS_INVALID_ARGUMENT, msg)


def _module(name):
    """A framework module only if the caller already imported it (never import torch ourselves)."""
    return sys.modules.get(name)


# ---- Array views ----------------------------------------------------------------------------

class _Array:
    """A strided view of an input: data pointer, dtype name, shape, strides in elements, and
    where it lives (device None = host, else a CUDA ordinal or -1 for "current")."""

    __slots__ = ("obj", "kind", "ptr", "dtype", "shape", "strides", "device", "ndim")

    def __init__(self, obj, kind, ptr, dtype, shape, strides, device):
        self.obj, self.kind, self.ptr, self.dtype = obj, kind, ptr, dtype
        self.shape, self.strides, self.device = tuple(shape), tuple(strides), device
        self.ndim = len(self.shape)

    def view(self, shape, strides):
        return _Array(self.obj, self.kind, self.ptr, self.dtype, shape, strides, self.device)

    def narrow(self, dim, start, length, keepdim=True):
        """Elements [start, start + length) of dimension dim, as a view (no copy); without
        keepdim a length-1 slice drops the dimension."""
        ptr = self.ptr + start * self.strides[dim] * _ITEMSIZE[self.dtype]
        shape, strides = list(self.shape), list(self.strides)
        shape[dim] = length
        if not keepdim:
            del shape[dim], strides[dim]
        return _Array(self.obj, self.kind, ptr, self.dtype, shape, strides, self.device)


_DTYPE_NAME_CACHE = {}  # dtype object (torch / numpy / type / str) -> canonical name


def _canonical_dtype(d):
    """'float16', 'bfloat16', ... from a string, torch dtype, numpy dtype or ml_dtypes type.
    Names are cached per dtype object: str(torch dtype) alone cost ~1 us a tensor per call."""
    if d is None:
        return None
    key = (type(d), d)  # by type too: numpy dtypes compare equal to strings that alias others
    try:
        return _DTYPE_NAME_CACHE[key]
    except (KeyError, TypeError):  # TypeError: an unhashable dtype-like object
        pass
    name = _dtype_name(d)
    try:
        _DTYPE_NAME_CACHE[key] = name
    except TypeError:
        pass
    return name


def _dtype_name(d):
    if isinstance(d, str):
        name = d.lower().replace("torch.", "")
        return _DTYPE_ALIASES.get(name, name)
    text = str(d)
    if text.startswith("torch."):
        return text[len("torch."):]
    np = _module("numpy")
    if np is not None:
        try:
            return np.dtype(d).name
        except TypeError:
            pass
    name = getattr(d, "__name__", None) or getattr(d, "name", None)
    if name:
        return _DTYPE_ALIASES.get(name, name)
    raise TypeError("cannot interpret %r as a dtype" % (d,))


def _from_torch(x, name):
    if x.is_cuda:
        device = x.get_device()  # the ordinal; cheaper than building x.device
    elif x.device.type == "cpu":
        device = None
    else:
        raise TypeError("%s: flashc runs on CUDA or host memory, not on torch device %s" % (name, x.device))
    return _Array(x, "torch", x.data_ptr(), _canonical_dtype(x.dtype), x.shape, x.stride(), device)


def _from_numpy(x, name):
    itemsize = x.dtype.itemsize
    if any(s % itemsize for s in x.strides):
        raise _invalid("%s: numpy strides %s are not a multiple of the element size %d"
                       % (name, x.strides, itemsize))
    strides = [s // itemsize for s in x.strides]
    return _Array(x, "numpy", x.__array_interface__["data"][0], _canonical_dtype(x.dtype), x.shape, strides, None)


def _from_cai(x, name):
    cai = x.__cuda_array_interface__
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    dtype = _TYPESTRS.get(typestr[1:])
    if typestr[1] == "V" or dtype is None:  # bfloat16 / fp8 are opaque here: ask the object
        dtype = _canonical_dtype(getattr(x, "dtype", typestr))
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides, step = [], 1
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= max(extent, 1)
    else:
        if any(s % itemsize for s in cai["strides"]):
            raise _invalid("%s: strides %s are not a multiple of the element size %d"
                           % (name, cai["strides"], itemsize))
        strides = [s // itemsize for s in cai["strides"]]
    dev = getattr(x, "device", None)
    device = getattr(dev, "id", None)
    kind = "cupy" if type(x).__module__.split(".")[0] == "cupy" else "cai"
    return _Array(x, kind, cai["data"][0] or 0, dtype, shape, strides, -1 if device is None else device)


def _from_dlpack(x, name):
    dev_type, _ = x.__dlpack_device__()
    if dev_type in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
        import numpy as np
        return _from_numpy(np.from_dlpack(x), name)
    torch = _module("torch")
    if torch is not None:
        return _from_torch(torch.from_dlpack(x), name)
    cupy = _module("cupy")
    if cupy is not None:
        return _from_cai(cupy.from_dlpack(x), name)
    raise TypeError("%s: a CUDA DLPack tensor needs torch or cupy imported to be read" % name)


def _as_array(x, name):
    """An _Array over x without copying, or None for None."""
    if x is None:
        return None
    if isinstance(x, _Array):
        return x
    torch = _module("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return _from_torch(x, name)
    np = _module("numpy")
    if np is not None and isinstance(x, np.ndarray):
        return _from_numpy(x, name)
    if hasattr(x, "__cuda_array_interface__"):
        return _from_cai(x, name)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _from_dlpack(x, name)
    if hasattr(x, "__array_interface__"):
        import numpy as np
        return _from_numpy(np.asarray(x), name)
    raise TypeError("%s: expected a torch tensor, numpy array, __cuda_array_interface__ or DLPack "
                    "object, got %s" % (name, type(x).__name__))


# ---- Allocation in the caller's framework ---------------------------------------------------

def _numpy_dtype(name):
    import numpy as np
    if name in ("bfloat16", "float8_e4m3fn"):
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("numpy %s needs the ml_dtypes package" % name) from None
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _have_ml_dtypes():
    try:
        import ml_dtypes  # noqa: F401
        return True
    except ImportError:
        return False


class _Allocator:
    """Allocates outputs like `like` (framework, device); remembers them for record_stream."""

    def __init__(self, like):
        self.kind = like.kind
        self.device = like.device
        self.like = like.obj
        self.made = []

    def empty(self, shape, dtype):
        shape = tuple(int(s) for s in shape)
        if self.kind == "torch":  # like q: its device, no torch.device built per call
            t = self.like.new_empty(shape, dtype=getattr(_module("torch"), dtype))
        elif self.kind == "cai":
            torch = _module("torch")
            if torch is None:
                raise TypeError("allocating outputs for this input needs torch or cupy; pass out=")
            dev = "cpu" if self.device is None else (
                torch.device("cuda", self.device) if self.device >= 0 else torch.device("cuda"))
            t = torch.empty(shape, dtype=getattr(torch, dtype), device=dev)
        elif self.kind == "cupy":
            import cupy
            if dtype in ("bfloat16", "float8_e4m3fn"):
                raise TypeError("cupy has no %s; pass out_dtype='float16' or out=" % dtype)
            t = cupy.empty(shape, dtype=dtype)
        else:
            import numpy as np
            t = np.empty(shape, dtype=_numpy_dtype(dtype))
        self.made.append(t)
        return t

    def full_int32(self, shape, value):
        """An int32 array filled with value (cache_seqlens given as an int)."""
        if self.kind in ("torch", "cai"):
            t = self.empty(shape, "int32")
            t.fill_(int(value))
        elif self.kind == "cupy":
            import cupy
            t = cupy.full(shape, int(value), dtype="int32")
            self.made.append(t)
        else:
            import numpy as np
            t = np.full(shape, int(value), dtype=np.int32)
        return t

    def host_int32(self, values):
        """Index array given as a Python sequence, placed where the call runs. On a GPU this is a
        host-to-device copy: pass device tensors instead where graph capture matters."""
        import numpy as np
        host = np.ascontiguousarray(np.asarray(values, dtype=np.int32))
        if self.device is None and self.kind == "numpy":
            return host
        if self.kind == "cupy":
            import cupy
            return cupy.asarray(host)
        torch = _module("torch")
        if torch is None:
            raise TypeError("index arrays for CUDA inputs must be tensors (torch or cupy)")
        dev = "cpu" if self.device is None else (
            torch.device("cuda", self.device) if self.device >= 0 else torch.device("cuda"))
        return torch.from_numpy(host).to(dev)


def _default_out_dtype(q):
    if q.dtype not in _EIGHT_BIT:
        return q.dtype
    # 8-bit inputs write bf16 (as flash-attn 3), where the framework has a bf16.
    if q.kind == "numpy" and not _have_ml_dtypes():
        return "float32"
    if q.kind == "cupy":
        return "float16"
    return "bfloat16"


# ---- Filling the C structs ------------------------------------------------------------------

def _set_tensor(t, a, name, dtype_code=None, broadcast=False):
    """Copy an _Array into a flashc_tensor (unset stays all-zero: absent). Broadcastable
    parameter tensors (bias, ALiBi, descales) may have an innermost stride of 0."""
    if a is None:
        return
    if a.ndim > _lib.MAX_DIMS:
        raise _invalid("%s has %d dimensions, flashc tensors have at most %d (shape %s)"
                       % (name, a.ndim, _lib.MAX_DIMS, a.shape))
    if dtype_code is None:
        dtype_code = _DTYPES.get(a.dtype)
        if dtype_code is None:
            raise FlashcError(_lib.STATUS_DTYPE_MISMATCH, "%s has dtype %s; flashc reads %s"
                              % (name, a.dtype, ", ".join(_DTYPES)))
    strides = list(a.strides)
    if a.ndim:
        if a.shape[-1] <= 1:
            strides[-1] = 1  # any stride is contiguous for an extent of one
        elif strides[-1] != 1 and not (broadcast and strides[-1] == 0):
            raise _invalid("%s: the innermost dimension must be contiguous (stride 1), got strides %s; "
                           "flashc does not copy, call .contiguous() first" % (name, tuple(a.strides)))
    t.data = a.ptr or None
    t.dtype = dtype_code
    t.ndim = a.ndim
    t.shape[:a.ndim] = a.shape  # one slice store each: per-element ctypes stores cost ~2x
    t.stride[:a.ndim] = strides


def _index_array(x, name, alloc, ndim=1):
    """An int32 index array (cu_seqlens, seqused_k, page_table) as an _Array; lists are accepted."""
    if x is None:
        return None
    if isinstance(x, (list, tuple, range)):
        x = alloc.host_int32(list(x))
        alloc.made.append(x)
    a = _as_array(x, name)
    if a.dtype != "int32":
        raise FlashcError(_lib.STATUS_DTYPE_MISMATCH, "%s must be int32, got %s" % (name, a.dtype))
    if a.ndim != ndim:
        raise _invalid("%s must have %d dimension(s), got shape %s" % (name, ndim, a.shape))
    if a.shape[-1] > 1 and a.strides[-1] != 1:
        raise _invalid("%s must be contiguous in its last dimension, got strides %s" % (name, a.strides))
    return a


def _host_max_diff(a):
    """max(a[i+1] - a[i]) of a host int32 array (to default max_seqlen); None on a device."""
    if a is None or a.device is not None:
        return None
    import numpy as np
    buf = (ctypes.c_int32 * a.shape[0]).from_address(a.ptr)
    vals = np.frombuffer(buf, dtype=np.int32)
    return int(np.max(np.diff(vals))) if vals.size > 1 else 0


def _broadcast_descale(x, name, b, h_kv):
    """A [b, h_kv] float32 view of a descale given as a scalar, [1], [h_kv], [1, 1], [b, 1],
    [1, h_kv] or [b, h_kv]: broadcast dimensions get stride 0 (no copy)."""
    if x is None:
        return None
    a = _as_array(x, name)
    shape, strides = list(a.shape), list(a.strides)
    while len(shape) < 2:
        shape.insert(0, 1)
        strides.insert(0, 0)
    if len(shape) != 2:
        raise _invalid("%s must be [b, h_kv] = [%d, %d] (or broadcastable to it), got shape %s"
                       % (name, b, h_kv, a.shape))
    for i, want in enumerate((b, h_kv)):
        if shape[i] == 1 and want != 1:
            shape[i], strides[i] = want, 0
        elif shape[i] != want:
            raise _invalid("%s must be [b, h_kv] = [%d, %d] (or broadcastable to it), got shape %s"
                           % (name, b, h_kv, a.shape))
        elif shape[i] == 1:
            strides[i] = 0
    return a.view(shape, strides)


def _bias_4d(a):
    """Bias given with fewer than 4 dimensions: leading extent-1 dimensions (broadcast)."""
    if a is None or a.ndim >= 4:
        return a
    pad = 4 - a.ndim
    return a.view((1,) * pad + a.shape, (0,) * pad + a.strides)


def _torch_raw_stream(torch):
    """torch's handle of the current stream of a device ordinal without building a Stream object
    (torch._C._cuda_getCurrentRawStream, what torch's own generated kernels launch on), else None."""
    return getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _stream_handle(q, stream):
    """The CUstream to run on: the one given, else the framework's current stream."""
    if stream is not None:
        return int(getattr(stream, "cuda_stream", getattr(stream, "ptr", stream)) or 0)
    if q.device is None:
        return 0
    if q.kind == "torch":
        torch = _module("torch")
        raw = _torch_raw_stream(torch)
        if raw is not None:
            return raw(q.device)
        return torch.cuda.current_stream(q.obj.device).cuda_stream
    if q.kind == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    torch = _module("torch")
    if torch is not None and torch.cuda.is_initialized():
        return torch.cuda.current_stream().cuda_stream
    return 0  # the legacy default stream


class _DeviceGuard:
    """Makes q's CUDA device current while the library runs (it runs on the current device)."""

    def __init__(self, q):
        self.ctx = None
        if q.device is not None and q.device >= 0:
            if q.kind == "torch":
                torch = _module("torch")
                if torch.cuda.current_device() != q.device:  # the usual case needs no switch
                    self.ctx = torch.cuda.device(q.device)
            elif q.kind == "cupy":
                import cupy
                self.ctx = cupy.cuda.Device(q.device)

    def __enter__(self):
        if self.ctx is not None:
            self.ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self.ctx is not None:
            return self.ctx.__exit__(*exc)
        return False


def _window(window_size):
    if window_size is None:
        return -1, -1
    left, right = window_size
    return int(left), int(right)


def _backend_code(backend):
    if isinstance(backend, int):
        return backend
    code = _lib.BACKENDS.get(str(backend).lower())
    if code is None:
        raise ValueError("backend must be one of %s, got %r" % (", ".join(_lib.BACKENDS), backend))
    return code


# ---- The one entry point --------------------------------------------------------------------

def _prepare(q, k, v, cu_seqlens_q=None, cu_seqlens_k=None, seqused_k=None, max_seqlen_q=None,
             max_seqlen_k=None, page_table=None, q_descale=None, k_descale=None, v_descale=None,
             softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, attn_bias=None,
             alibi_slopes=None, out=None, out_dtype=None, v_transposed=False, backend="auto",
             return_lse=False):
    """Build flashc_attention_params. Returns (params, q, outputs, keepalive, alloc)."""
    Q = _as_array(q, "q")
    K = _as_array(k, "k")
    V = _as_array(v, "v")
    if Q is None or K is None or V is None:
        raise TypeError("q, k and v are required")
    alloc = _Allocator(Q)
    keep = [Q, K, V]

    varlen_q = cu_seqlens_q is not None
    cu_q = _index_array(cu_seqlens_q, "cu_seqlens_q", alloc)
    cu_k = _index_array(cu_seqlens_k, "cu_seqlens_k", alloc)
    used_k = _index_array(seqused_k, "seqused_k", alloc)
    pages = _index_array(page_table, "page_table", alloc, ndim=2)
    keep += [cu_q, cu_k, used_k, pages]

    want_q_ndim = 3 if varlen_q else 4
    if Q.ndim != want_q_ndim:
        raise _invalid("q must be %s, got shape %s"
                       % ("[total_q, h_q, d] (varlen)" if varlen_q else "[b, s_q, h_q, d]", Q.shape))
    if varlen_q:
        if cu_q.shape[0] < 2:
            raise _invalid("cu_seqlens_q must have b + 1 >= 2 entries, got %d" % cu_q.shape[0])
        batch = cu_q.shape[0] - 1
        total_q, h_q = Q.shape[0], Q.shape[1]
        if max_seqlen_q is None:
            max_seqlen_q = _host_max_diff(cu_q)
            if max_seqlen_q is None:
                raise ValueError("max_seqlen_q is required with device cu_seqlens_q "
                                 "(computing it would synchronise with the device)")
        lse_shape = (h_q, total_q)
    else:
        batch, s_q, h_q = Q.shape[0], Q.shape[1], Q.shape[2]
        lse_shape = (batch, h_q, s_q)
    # The C API reads these through raw pointers: their lengths are checked here.
    if cu_k is not None and cu_k.shape[0] != batch + 1:
        raise _invalid("cu_seqlens_k must have b + 1 = %d entries, got %d" % (batch + 1, cu_k.shape[0]))
    if used_k is not None and used_k.shape[0] < batch:
        raise _invalid("seqused_k must have b = %d entries, got %d" % (batch, used_k.shape[0]))
    if pages is not None and pages.shape[0] < batch:
        raise _invalid("page_table must have b = %d rows, got shape %s" % (batch, pages.shape))
    if cu_k is not None and max_seqlen_k is None:
        max_seqlen_k = _host_max_diff(cu_k)
        if max_seqlen_k is None:
            raise ValueError("max_seqlen_k is required with device cu_seqlens_k "
                             "(computing it would synchronise with the device)")
    if pages is not None and max_seqlen_k is None and K.ndim == 4:
        max_seqlen_k = pages.shape[1] * K.shape[1]  # what the page table can address
    h_kv = K.shape[-2] if K.ndim >= 2 else 0

    # Outputs: out has q's shape; LSE is float32.
    if out is None:
        out = alloc.empty(Q.shape, _canonical_dtype(out_dtype) or _default_out_dtype(Q))
    elif out_dtype is not None:
        got = _as_array(out, "out").dtype
        if got != _canonical_dtype(out_dtype):
            raise FlashcError(_lib.STATUS_DTYPE_MISMATCH,
                              "out has dtype %s but out_dtype=%s" % (got, _canonical_dtype(out_dtype)))
    lse = alloc.empty(lse_shape, "float32") if return_lse else None
    O = _as_array(out, "out")
    L = _as_array(lse, "lse")
    keep += [O, L]

    p = _lib.new_params()
    _set_tensor(p.q, Q, "q")
    _set_tensor(p.k, K, "k")
    _set_tensor(p.v, V, "v")
    _set_tensor(p.out, O, "out")
    _set_tensor(p.lse, L, "lse")
    p.v_transposed = 1 if v_transposed else 0
    p.batch = int(batch)
    p.cu_seqlens_q = cu_q.ptr if cu_q is not None else None
    p.cu_seqlens_k = cu_k.ptr if cu_k is not None else None
    p.seqused_k = used_k.ptr if used_k is not None else None
    p.max_seqlen_q = int(max_seqlen_q or 0)
    p.max_seqlen_k = int(max_seqlen_k or 0)
    if pages is not None:
        p.page_table = pages.ptr
        p.page_table_stride = int(pages.strides[0])
        p.max_pages_per_seq = int(pages.shape[1])

    for field, value in (("q_descale", q_descale), ("k_descale", k_descale), ("v_descale", v_descale)):
        if isinstance(value, (int, float)):
            value = _scalar_f32(value, alloc)
        a = _broadcast_descale(value, field, batch, h_kv)
        keep.append(a)
        _set_tensor(getattr(p, field), a, field, broadcast=True)

    p.softmax_scale = 0.0 if softmax_scale is None else float(softmax_scale)
    p.softcap = float(softcap or 0.0)
    p.causal = 1 if causal else 0
    p.window_left, p.window_right = _window(window_size)

    B = _bias_4d(_as_array(attn_bias, "attn_bias"))
    A = _as_array(alibi_slopes, "alibi_slopes")
    keep += [B, A]
    _set_tensor(p.bias, B, "attn_bias", broadcast=True)
    _set_tensor(p.alibi_slopes, A, "alibi_slopes", broadcast=True)
    p.backend = _backend_code(backend)
    return p, Q, (out, lse), keep, alloc


def _scalar_f32(value, alloc):
    """A one-element float32 array holding value, in the call's framework and device."""
    if alloc.kind == "numpy":
        import numpy as np
        return np.full((1,), float(value), dtype=np.float32)
    t = alloc.empty((1,), "float32")
    if alloc.kind == "cupy":
        t.fill(float(value))
    else:
        t.fill_(float(value))
    return t


def attention(q, k, v, *, cu_seqlens_q=None, cu_seqlens_k=None, seqused_k=None, max_seqlen_q=None,
              max_seqlen_k=None, page_table=None, q_descale=None, k_descale=None, v_descale=None,
              softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, attn_bias=None,
              alibi_slopes=None, out=None, out_dtype=None, v_transposed=False, backend="auto",
              return_lse=False, stream=None):
    """The whole flashc_attention_forward in one call (every field of flashc_attention_params).

    Layouts are the C header's (include/flashc.h): q [b, s_q, h_q, d] or, with cu_seqlens_q,
    [total_q, h_q, d]; k/v batched [b, s_k, h_kv, d], varlen [total_k, h_kv, d] (cu_seqlens_k) or
    paged [num_pages, page_size, h_kv, d] (page_table + seqused_k). Returns out, or (out, lse)
    when return_lse. `stream` (CUstream handle as int, or an object with .cuda_stream / .ptr)
    overrides the framework's current stream.
    """
    p, Q, (out_t, lse_t), keep, alloc = _prepare(
        q, k, v, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k, seqused_k=seqused_k,
        max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, page_table=page_table,
        q_descale=q_descale, k_descale=k_descale, v_descale=v_descale, softmax_scale=softmax_scale,
        causal=causal, window_size=window_size, softcap=softcap, attn_bias=attn_bias,
        alibi_slopes=alibi_slopes, out=out, out_dtype=out_dtype, v_transposed=v_transposed,
        backend=backend, return_lse=return_lse)
    lib = _lib.load()
    with _DeviceGuard(Q):
        handle = _stream_handle(Q, stream) if Q.device is not None else 0
        size = ctypes.c_size_t(0)
        _lib.check(lib.flashc_attention_workspace_size(ctypes.byref(p), ctypes.byref(size)))
        workspace = None
        if size.value > 0:
            workspace = alloc.empty((size.value,), "uint8")
        ws_ptr = _as_array(workspace, "workspace").ptr if workspace is not None else None
        _lib.check(lib.flashc_attention_forward(ctypes.byref(p), ws_ptr, size.value, handle or None))
        if stream is not None and Q.kind == "torch" and Q.device is not None:
            # Outputs and temporaries were allocated on the current stream but are used on
            # another: tell torch's caching allocator not to reuse them before that stream is done.
            torch = _module("torch")
            ext = torch.cuda.ExternalStream(handle, device=Q.obj.device)
            for t in alloc.made:
                if isinstance(t, torch.Tensor) and t.is_cuda:
                    t.record_stream(ext)
    del keep
    return (out_t, lse_t) if return_lse else out_t


def select_backend(q, k, v, **kwargs):
    """The backend ('cpu', 'sm80' or 'sm90') that backend='auto' (or the one asked for) runs for
    these arguments, after the same validation as a real call. Nothing is computed."""
    kwargs.pop("stream", None)
    p, Q, _, keep, _alloc = _prepare(q, k, v, **kwargs)
    lib = _lib.load()
    chosen = _lib.c_enum(0)
    with _DeviceGuard(Q):
        _lib.check(lib.flashc_attention_select_backend(ctypes.byref(p), ctypes.byref(chosen)))
    del keep
    return _lib.BACKEND_NAMES.get(chosen.value, str(chosen.value))


# ---- flash-attn 3 compatible functions ------------------------------------------------------

_WHAT_IS_MISSING = {
    "k": "appending new keys to the cache", "v": "appending new values to the cache",
    "rotary_cos": "rotary embedding", "rotary_sin": "rotary embedding",
    "rotary_seqlens": "rotary embedding", "cache_batch_idx": "cache batch indirection",
    "cache_leftpad": "left-padded caches", "cu_seqlens_k_new": "appending new keys to the cache",
    "qv": "the extra qv operand", "seqused_q": "per-sequence query counts",
    "attention_chunk": "chunked attention",
}


def _unsupported(**named):
    """NotImplementedError for a flash-attn 3 argument flashc has no counterpart of (tensors:
    anything but None; numbers: anything but 0)."""
    for name, value in named.items():
        if value is None or (isinstance(value, (int, float)) and value == 0):
            continue
        raise NotImplementedError("flashc: %s= is not supported (forward attention over the given "
                                  "keys/values only; no %s)" % (name, _WHAT_IS_MISSING.get(name, name)))


def flash_attn_func(q, k, v, softmax_scale=None, causal=False, qv=None, q_descale=None,
                    k_descale=None, v_descale=None, window_size=(-1, -1), attention_chunk=0,
                    softcap=0.0, num_splits=1, pack_gqa=None, deterministic=False, sm_margin=0,
                    return_attn_probs=False, *, attn_bias=None, alibi_slopes=None, out=None,
                    out_dtype=None, v_transposed=False, backend="auto"):
    """flash-attn 3's flash_attn_func, forward only.

    q [b, s_q, h_q, d], k/v [b, s_k, h_kv, d] (h_q a multiple of h_kv). Returns out
    [b, s_q, h_q, d], or (out, softmax_lse [b, h_q, s_q] float32) when return_attn_probs.
    num_splits, pack_gqa, deterministic and sm_margin are performance hints of flash-attn 3 and
    are ignored. Extras: attn_bias [b|1, h_q|1, s_q, s_k], alibi_slopes [h_q] or [b, h_q] float32,
    out (preallocated), out_dtype, v_transposed (8-bit: v [b, h_kv, d, s_k]), backend.
    """
    _unsupported(qv=qv, attention_chunk=attention_chunk)
    return attention(q, k, v, q_descale=q_descale, k_descale=k_descale, v_descale=v_descale,
                     softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                     softcap=softcap, attn_bias=attn_bias, alibi_slopes=alibi_slopes, out=out,
                     out_dtype=out_dtype, v_transposed=v_transposed, backend=backend,
                     return_lse=return_attn_probs)


def flash_attn_qkvpacked_func(qkv, softmax_scale=None, causal=False, q_descale=None, k_descale=None,
                              v_descale=None, window_size=(-1, -1), attention_chunk=0, softcap=0.0,
                              deterministic=False, num_heads_q=None, sm_margin=0,
                              return_attn_probs=False, *, attn_bias=None, alibi_slopes=None,
                              out=None, out_dtype=None, backend="auto"):
    """flash-attn 3's flash_attn_qkvpacked_func, forward only: qkv [b, s, 3, h, d], or
    [b, s, h_q + 2 * h_kv, d] with num_heads_q = h_q (GQA). q, k and v are read through views of
    the packed tensor (no copy)."""
    _unsupported(attention_chunk=attention_chunk)
    packed = _as_array(qkv, "qkv")
    if packed.dtype not in _ITEMSIZE:
        raise FlashcError(_lib.STATUS_DTYPE_MISMATCH, "qkv has dtype %s; flashc reads %s"
                          % (packed.dtype, ", ".join(_DTYPES)))
    if packed.ndim == 5:
        if packed.shape[2] != 3:
            raise _invalid("qkv must be [b, s, 3, h, d], got shape %s" % (packed.shape,))
        q, k, v = (packed.narrow(2, i, 1, keepdim=False) for i in range(3))
    elif packed.ndim == 4 and num_heads_q is not None:
        h_kv, rest = divmod(packed.shape[2] - num_heads_q, 2)
        if rest or h_kv < 1:
            raise _invalid("qkv [b, s, h_q + 2 * h_kv, d] with num_heads_q = %d: %d heads do not split"
                           % (num_heads_q, packed.shape[2]))
        q = packed.narrow(2, 0, num_heads_q)
        k = packed.narrow(2, num_heads_q, h_kv)
        v = packed.narrow(2, num_heads_q + h_kv, h_kv)
    else:
        raise _invalid("qkv must be [b, s, 3, h, d], or [b, s, h_q + 2 * h_kv, d] with num_heads_q, "
                       "got shape %s" % (packed.shape,))
    return attention(q, k, v, q_descale=q_descale, k_descale=k_descale, v_descale=v_descale,
                     softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                     softcap=softcap, attn_bias=attn_bias, alibi_slopes=alibi_slopes, out=out,
                     out_dtype=out_dtype, backend=backend, return_lse=return_attn_probs)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                           seqused_q=None, seqused_k=None, softmax_scale=None, causal=False,
                           qv=None, q_descale=None, k_descale=None, v_descale=None,
                           window_size=(-1, -1), attention_chunk=0, softcap=0.0, num_splits=1,
                           pack_gqa=None, deterministic=False, sm_margin=0,
                           return_attn_probs=False, *, attn_bias=None, alibi_slopes=None,
                           out=None, out_dtype=None, v_transposed=False, backend="auto"):
    """flash-attn 3's flash_attn_varlen_func, forward only.

    q [total_q, h_q, d] with cu_seqlens_q [b+1] int32 (or None: q batched [b, s_q, h_q, d]);
    k/v [total_k, h_kv, d] with cu_seqlens_k [b+1] int32 (or None: batched). seqused_k [b] int32
    limits the keys each sequence uses. Returns out like q, or (out, softmax_lse [h_q, total_q])
    when return_attn_probs. max_seqlen_q/k may be None for host index arrays.
    """
    _unsupported(seqused_q=seqused_q, qv=qv, attention_chunk=attention_chunk)
    return attention(q, k, v, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                     seqused_k=seqused_k, max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k,
                     q_descale=q_descale, k_descale=k_descale, v_descale=v_descale,
                     softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                     softcap=softcap, attn_bias=attn_bias, alibi_slopes=alibi_slopes, out=out,
                     out_dtype=out_dtype, v_transposed=v_transposed, backend=backend,
                     return_lse=return_attn_probs)


def flash_attn_with_kvcache(q, k_cache, v_cache, k=None, v=None, qv=None, rotary_cos=None,
                            rotary_sin=None, cache_seqlens=None, cache_batch_idx=None,
                            cache_leftpad=None, page_table=None, cu_seqlens_q=None,
                            cu_seqlens_k_new=None, max_seqlen_q=None, rotary_seqlens=None,
                            q_descale=None, k_descale=None, v_descale=None, softmax_scale=None,
                            causal=False, window_size=(-1, -1), attention_chunk=0, softcap=0.0,
                            rotary_interleaved=True, scheduler_metadata=None, num_splits=0,
                            pack_gqa=None, sm_margin=0, return_softmax_lse=False, *,
                            max_seqlen_k=None, attn_bias=None, alibi_slopes=None, out=None,
                            out_dtype=None, v_transposed=False, backend="auto"):
    """flash-attn 3's flash_attn_with_kvcache, attention over the cache only (no append).

    q [b, s_q, h_q, d] (or [total_q, h_q, d] with cu_seqlens_q, max_seqlen_q);
    k_cache/v_cache [b, s_cache, h_kv, d], or paged [num_pages, page_size, h_kv, d] with
    page_table [b, max_pages_per_seq] int32. cache_seqlens (int or [b] int32) is the number of
    valid keys per sequence; required with page_table, else defaults to the whole cache.
    Returns out, or (out, softmax_lse) when return_softmax_lse. Appending new keys/values (k=,
    v=), rotary embedding, cache_batch_idx and cache_leftpad raise NotImplementedError.
    """
    _unsupported(k=k, v=v, qv=qv, rotary_cos=rotary_cos, rotary_sin=rotary_sin,
                 cache_batch_idx=cache_batch_idx, cache_leftpad=cache_leftpad,
                 cu_seqlens_k_new=cu_seqlens_k_new, rotary_seqlens=rotary_seqlens,
                 attention_chunk=attention_chunk)
    Q = _as_array(q, "q")
    if isinstance(cache_seqlens, int):
        if cu_seqlens_q is not None:
            b = len(cu_seqlens_q) - 1 if isinstance(cu_seqlens_q, (list, tuple)) else \
                _as_array(cu_seqlens_q, "cu_seqlens_q").shape[0] - 1
        else:
            b = Q.shape[0]
        cache_seqlens = _Allocator(Q).full_int32((b,), cache_seqlens)
    if page_table is not None and cache_seqlens is None:
        raise ValueError("flash_attn_with_kvcache: a paged cache (page_table) needs cache_seqlens")
    return attention(q, k_cache, v_cache, cu_seqlens_q=cu_seqlens_q, seqused_k=cache_seqlens,
                     max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, page_table=page_table,
                     q_descale=q_descale, k_descale=k_descale, v_descale=v_descale,
                     softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                     softcap=softcap, attn_bias=attn_bias, alibi_slopes=alibi_slopes, out=out,
                     out_dtype=out_dtype, v_transposed=v_transposed, backend=backend,
                     return_lse=return_softmax_lse)
