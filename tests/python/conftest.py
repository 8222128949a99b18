"""Make the in-tree package importable when pytest runs from a checkout (CTest sets PYTHONPATH
itself; a plain `pytest tests/python` from the repo root gets it from here)."""
import os
import sys

_PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python")
if os.path.isdir(os.path.join(_PYTHON_DIR, "flashc")) and os.path.abspath(_PYTHON_DIR) not in sys.path:
    sys.path.insert(0, os.path.abspath(_PYTHON_DIR))
