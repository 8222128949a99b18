"""flashc: exact FlashAttention forward (Hopper/Ada GPUs, fp64 CPU reference) over a C ABI.

A drop-in for flash-attn 3's forward functions:

    from flashc import flash_attn_func            # instead of flash_attn_interface
    out = flash_attn_func(q, k, v, causal=True)

Inputs may be torch tensors (CUDA or CPU), numpy arrays, __cuda_array_interface__ objects
(CuPy) or DLPack tensors. Host memory runs the CPU reference backend. Failures of the C library
raise FlashcError (NotSupportedError for valid calls no kernel implements).
"""
from ._lib import (
    FlashcError,
    NotSupported,
    NotSupportedError,
    version as library_version,
)
from .interface import (
    attention,
    flash_attn_func,
    flash_attn_qkvpacked_func,
    flash_attn_varlen_func,
    flash_attn_with_kvcache,
    select_backend,
)

__version__ = "0.1.0"


def library_path():
    """Path of the libflashc actually loaded (see flashc._lib.candidate_paths for the order)."""
    from ._lib import load
    return load()._flashc_path


def release_caches():
    """flashc_release_caches(): drop cached per-device state (tensor maps, device properties)."""
    from ._lib import load
    load().flashc_release_caches()


__all__ = [
    "FlashcError",
    "NotSupported",
    "NotSupportedError",
    "attention",
    "flash_attn_func",
    "flash_attn_qkvpacked_func",
    "flash_attn_varlen_func",
    "flash_attn_with_kvcache",
    "library_path",
    "library_version",
    "release_caches",
    "select_backend",
]
