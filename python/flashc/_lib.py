"""ctypes bindings of include/flashc.h, and the search for libflashc.

Everything here mirrors the C header one to one: enum values, struct field order and types.
tests/python/test_abi.py compiles a tiny C program against the header and checks every offset.
"""
import ctypes
import ctypes.util
import glob
import os
import threading

# The ABI this package was written against (FLASHC_VERSION_MAJOR / MINOR of include/flashc.h).
ABI_VERSION_MAJOR = 0
ABI_VERSION_MINOR = 1

MAX_DIMS = 4  # FLASHC_MAX_DIMS

# ---- Enums (values pinned by the header) --------------------------------------------------

STATUS_SUCCESS = 0
STATUS_INVALID_ARGUMENT = 1
STATUS_DTYPE_MISMATCH = 2
STATUS_MISALIGNED = 3
STATUS_NOT_SUPPORTED = 4
STATUS_WORKSPACE_TOO_SMALL = 5
STATUS_NO_DEVICE = 6
STATUS_CUDA_ERROR = 7
STATUS_OUT_OF_MEMORY = 8
STATUS_INTERNAL_ERROR = 9

DTYPE_F32 = 0
DTYPE_F16 = 1
DTYPE_BF16 = 2
DTYPE_FP8_E4M3 = 3
DTYPE_INT8 = 4

BACKEND_AUTO = 0
BACKEND_CPU = 1
BACKEND_SM80 = 2
BACKEND_SM90 = 3

BACKENDS = {"auto": BACKEND_AUTO, "cpu": BACKEND_CPU, "sm80": BACKEND_SM80, "sm90": BACKEND_SM90}
BACKEND_NAMES = {v: k for k, v in BACKENDS.items()}

# C enums are `int` on every ABI flashc targets.
c_enum = ctypes.c_int


class flashc_tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", c_enum),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_DIMS),
        ("stride", ctypes.c_int64 * MAX_DIMS),
    ]


class flashc_attention_params(ctypes.Structure):
    _fields_ = [
        ("q", flashc_tensor),
        ("k", flashc_tensor),
        ("v", flashc_tensor),
        ("out", flashc_tensor),
        ("lse", flashc_tensor),
        ("v_transposed", ctypes.c_int32),
        ("batch", ctypes.c_int32),
        ("cu_seqlens_q", ctypes.c_void_p),
        ("cu_seqlens_k", ctypes.c_void_p),
        ("seqused_k", ctypes.c_void_p),
        ("max_seqlen_q", ctypes.c_int32),
        ("max_seqlen_k", ctypes.c_int32),
        ("page_table", ctypes.c_void_p),
        ("page_table_stride", ctypes.c_int64),
        ("max_pages_per_seq", ctypes.c_int32),
        ("q_descale", flashc_tensor),
        ("k_descale", flashc_tensor),
        ("v_descale", flashc_tensor),
        ("softmax_scale", ctypes.c_float),
        ("softcap", ctypes.c_float),
        ("causal", ctypes.c_int32),
        ("window_left", ctypes.c_int32),
        ("window_right", ctypes.c_int32),
        ("bias", flashc_tensor),
        ("alibi_slopes", flashc_tensor),
        ("backend", c_enum),
    ]


# ---- Errors -------------------------------------------------------------------------------

class FlashcError(RuntimeError):
    """A flashc call failed. `status` is the flashc_status value, `status_name` its name
    (e.g. "FLASHC_STATUS_INVALID_ARGUMENT") and `message` flashc_last_error()'s detail."""

    def __init__(self, status, message, status_name=None):
        self.status = int(status)
        self.status_name = status_name or _STATUS_NAMES.get(self.status, "FLASHC_STATUS_UNKNOWN")
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message))

    def __reduce__(self):  # picklable (multiprocessing, pytest-xdist)
        return (type(self), (self.status, self.message, self.status_name))


class NotSupportedError(FlashcError):
    """FLASHC_STATUS_NOT_SUPPORTED: a valid call that no kernel implements (yet)."""


NotSupported = NotSupportedError

_STATUS_NAMES = {
    STATUS_SUCCESS: "FLASHC_STATUS_SUCCESS",
    STATUS_INVALID_ARGUMENT: "FLASHC_STATUS_INVALID_ARGUMENT",
    STATUS_DTYPE_MISMATCH: "FLASHC_STATUS_DTYPE_MISMATCH",
    STATUS_MISALIGNED: "FLASHC_STATUS_MISALIGNED",
    STATUS_NOT_SUPPORTED: "FLASHC_STATUS_NOT_SUPPORTED",
    STATUS_WORKSPACE_TOO_SMALL: "FLASHC_STATUS_WORKSPACE_TOO_SMALL",
    STATUS_NO_DEVICE: "FLASHC_STATUS_NO_DEVICE",
    STATUS_CUDA_ERROR: "FLASHC_STATUS_CUDA_ERROR",
    STATUS_OUT_OF_MEMORY: "FLASHC_STATUS_OUT_OF_MEMORY",
    STATUS_INTERNAL_ERROR: "FLASHC_STATUS_INTERNAL_ERROR",
}


def error_for(status, message):
    """The exception for a failed status (message: flashc_last_error() of that call)."""
    cls = NotSupportedError if status == STATUS_NOT_SUPPORTED else FlashcError
    return cls(status, message)


# ---- Finding and loading the library ------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_REPO_DIR = os.path.dirname(os.path.dirname(_PACKAGE_DIR))  # <repo>/python/flashc -> <repo>
_LIB_NAMES = ("libflashc.so", "libflashc.dylib", "flashc.dll")


def candidate_paths():
    """Where load() looks, in order: $FLASHC_LIBRARY; the copy the pip build installs in
    flashc/_lib/; the system's library path; the repository's build*/ folders (newest first)."""
    env = os.environ.get("FLASHC_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    paths = []
    for name in _LIB_NAMES:
        paths += sorted(glob.glob(os.path.join(_PACKAGE_DIR, "_lib", name + "*")))
    found = ctypes.util.find_library("flashc")
    if found:
        paths.append(found)
    built = []
    for name in _LIB_NAMES:
        built += glob.glob(os.path.join(_REPO_DIR, "build*", name))
    built.sort(key=os.path.getmtime, reverse=True)
    return paths + built


_lock = threading.Lock()
_lib = None


def _declare(lib):
    P = ctypes.POINTER
    lib.flashc_version.restype = ctypes.c_int
    lib.flashc_version.argtypes = []
    lib.flashc_status_string.restype = ctypes.c_char_p
    lib.flashc_status_string.argtypes = [c_enum]
    lib.flashc_last_error.restype = ctypes.c_char_p
    lib.flashc_last_error.argtypes = []
    lib.flashc_attention_params_init.restype = None
    lib.flashc_attention_params_init.argtypes = [P(flashc_attention_params)]
    lib.flashc_make_tensor.restype = flashc_tensor
    lib.flashc_make_tensor.argtypes = [ctypes.c_void_p, c_enum, ctypes.c_int32, P(ctypes.c_int64)]
    lib.flashc_attention_check.restype = c_enum
    lib.flashc_attention_check.argtypes = [P(flashc_attention_params)]
    lib.flashc_attention_workspace_size.restype = c_enum
    lib.flashc_attention_workspace_size.argtypes = [P(flashc_attention_params), P(ctypes.c_size_t)]
    lib.flashc_attention_forward.restype = c_enum
    lib.flashc_attention_forward.argtypes = [P(flashc_attention_params), ctypes.c_void_p,
                                             ctypes.c_size_t, ctypes.c_void_p]
    lib.flashc_attention_select_backend.restype = c_enum
    lib.flashc_attention_select_backend.argtypes = [P(flashc_attention_params), P(c_enum)]
    lib.flashc_release_caches.restype = None
    lib.flashc_release_caches.argtypes = []


def load():
    """The loaded libflashc (ctypes.CDLL), found once per process. Raises OSError naming every
    place tried when there is none, or when its version does not match this package."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in candidate_paths():
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
                continue
            _declare(lib)
            version = lib.flashc_version()
            major, minor = version // 10000, (version // 100) % 100
            if (major, minor) != (ABI_VERSION_MAJOR, ABI_VERSION_MINOR):
                raise OSError("%s is flashc %d.%d, this Python package needs %d.%d"
                              % (path, major, minor, ABI_VERSION_MAJOR, ABI_VERSION_MINOR))
            lib._flashc_path = path
            _lib = lib
            return lib
        raise OSError("libflashc not found; set FLASHC_LIBRARY to its path. Tried: "
                      + ("; ".join(tried) if tried else "nothing (no candidate exists)")
                      + ". Searched: $FLASHC_LIBRARY, %s, the system library path, %s"
                      % (os.path.join(_PACKAGE_DIR, "_lib"), os.path.join(_REPO_DIR, "build*")))


def last_error():
    return (load().flashc_last_error() or b"").decode("utf-8", "replace")


def check(status):
    """Raise the matching FlashcError for a non-zero status, with flashc_last_error()'s text.
    Call it right after the failing call, on the same thread (the message is thread-local)."""
    if status != STATUS_SUCCESS:
        raise error_for(status, last_error())


def version():
    """The loaded library's FLASHC_VERSION (MAJOR * 10000 + MINOR * 100 + PATCH)."""
    return load().flashc_version()


_params_template = None


def new_params():
    """A flashc_attention_params as flashc_attention_params_init leaves it. The library fills
    one template per process; each call copies its bytes (a quarter of the foreign call's cost)."""
    global _params_template
    if _params_template is None:
        p = flashc_attention_params()
        load().flashc_attention_params_init(ctypes.byref(p))
        _params_template = bytes(p)
    return flashc_attention_params.from_buffer_copy(_params_template)
