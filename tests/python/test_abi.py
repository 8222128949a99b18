"""The ctypes mirror of include/flashc.h matches the C compiler's layout, field by field, and
the enum values match the header's. Skips where no C compiler is found."""
import ctypes
import os
import shutil
import subprocess

import pytest

from flashc import _lib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
HEADER_DIR = os.path.join(REPO, "include")

ENUMS = [
    ("FLASHC_STATUS_SUCCESS", _lib.STATUS_SUCCESS),
    ("FLASHC_STATUS_INVALID_ARGUMENT", _lib.STATUS_INVALID_ARGUMENT),
    ("FLASHC_STATUS_DTYPE_MISMATCH", _lib.STATUS_DTYPE_MISMATCH),
    ("FLASHC_STATUS_MISALIGNED", _lib.STATUS_MISALIGNED),
    ("FLASHC_STATUS_NOT_SUPPORTED", _lib.STATUS_NOT_SUPPORTED),
    ("FLASHC_STATUS_WORKSPACE_TOO_SMALL", _lib.STATUS_WORKSPACE_TOO_SMALL),
    ("FLASHC_STATUS_NO_DEVICE", _lib.STATUS_NO_DEVICE),
    ("FLASHC_STATUS_CUDA_ERROR", _lib.STATUS_CUDA_ERROR),
    ("FLASHC_STATUS_OUT_OF_MEMORY", _lib.STATUS_OUT_OF_MEMORY),
    ("FLASHC_STATUS_INTERNAL_ERROR", _lib.STATUS_INTERNAL_ERROR),
    ("FLASHC_DTYPE_F32", _lib.DTYPE_F32),
    ("FLASHC_DTYPE_F16", _lib.DTYPE_F16),
    ("FLASHC_DTYPE_BF16", _lib.DTYPE_BF16),
    ("FLASHC_DTYPE_FP8_E4M3", _lib.DTYPE_FP8_E4M3),
    ("FLASHC_DTYPE_INT8", _lib.DTYPE_INT8),
    ("FLASHC_BACKEND_AUTO", _lib.BACKEND_AUTO),
    ("FLASHC_BACKEND_CPU", _lib.BACKEND_CPU),
    ("FLASHC_BACKEND_SM80", _lib.BACKEND_SM80),
    ("FLASHC_BACKEND_SM90", _lib.BACKEND_SM90),
    ("FLASHC_MAX_DIMS", _lib.MAX_DIMS),
    ("FLASHC_VERSION_MAJOR", _lib.ABI_VERSION_MAJOR),
    ("FLASHC_VERSION_MINOR", _lib.ABI_VERSION_MINOR),
]


def _layout_lines():
    """(C expression, value ctypes says) for every size, offset and enum value."""
    lines = []
    for struct, cname in ((_lib.flashc_tensor, "flashc_tensor"),
                          (_lib.flashc_attention_params, "flashc_attention_params")):
        lines.append(("sizeof(%s)" % cname, ctypes.sizeof(struct)))
        for field, _ in struct._fields_:
            lines.append(("offsetof(%s, %s)" % (cname, field), getattr(struct, field).offset))
            lines.append(("sizeof(((%s *)0)->%s)" % (cname, field), getattr(struct, field).size))
    lines += [("(long long)%s" % name, value) for name, value in ENUMS]
    lines.append(("sizeof(flashc_status)", ctypes.sizeof(_lib.c_enum)))
    return lines


def test_struct_layout_matches_header(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    lines = _layout_lines()
    src = tmp_path / "layout.c"
    src.write_text("#include <stddef.h>\n#include <stdio.h>\n#include \"flashc.h\"\nint main(void) {\n"
                   + "".join('    printf("%%lld\\n", (long long)(%s));\n' % expr for expr, _ in lines)
                   + "    return 0;\n}\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c99", "-I", HEADER_DIR, str(src), "-o", str(exe)], check=True)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    mismatches = ["%s: C %s, ctypes %d" % (expr, c, py) for (expr, py), c in zip(lines, got) if int(c) != py]
    assert len(got) == len(lines)
    assert not mismatches, "\n".join(mismatches)


def test_params_init_matches_python_defaults():
    p = _lib.new_params()
    assert p.window_left == -1 and p.window_right == -1
    assert p.q.data is None and p.backend == _lib.BACKEND_AUTO and p.softmax_scale == 0.0


def test_status_strings_match_python_names():
    lib = _lib.load()
    for code, name in _lib._STATUS_NAMES.items():
        assert lib.flashc_status_string(code).decode() == name


def test_make_tensor_agrees_with_contiguous_strides():
    shape = (ctypes.c_int64 * 4)(2, 3, 5, 7)
    t = _lib.load().flashc_make_tensor(None, _lib.DTYPE_F16, 4, shape)
    assert t.ndim == 4 and list(t.shape) == [2, 3, 5, 7] and list(t.stride) == [105, 35, 7, 1]


def test_library_env_override(monkeypatch, tmp_path):
    """$FLASHC_LIBRARY is the only candidate when set, and a wrong path says what was tried."""
    monkeypatch.setenv("FLASHC_LIBRARY", str(tmp_path / "nope.so"))
    assert _lib.candidate_paths() == [str(tmp_path / "nope.so")]
    monkeypatch.setattr(_lib, "_lib", None)
    with pytest.raises(OSError, match="nope.so"):
        _lib.load()


def test_library_search_order(monkeypatch):
    monkeypatch.delenv("FLASHC_LIBRARY", raising=False)
    paths = _lib.candidate_paths()
    pkg_lib = os.path.join(os.path.dirname(_lib.__file__), "_lib")
    in_pkg = [i for i, p in enumerate(paths) if p.startswith(pkg_lib)]
    in_build = [i for i, p in enumerate(paths) if os.sep + "build" in p and not p.startswith(pkg_lib)]
    if in_pkg and in_build:
        assert max(in_pkg) < min(in_build)
