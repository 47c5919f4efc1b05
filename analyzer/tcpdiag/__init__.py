"""tcpdiag: why is this TCP transfer slow? Answers from a packet capture.

The public API is re-exported here; the compiled core is the private `tcpdiag._native`.
pandas-based functions load on first use, so the CLI starts without pandas.
"""

from tcpdiag._native import __version__
from tcpdiag.analysis import Analysis, analyze
from tcpdiag.errors import (
    CaptureDamagedError,
    CaptureError,
    CaptureIOError,
    CaptureWarning,
    NotACaptureError,
)

_LAZY = {"flows": "tcpdiag.api", "packets": "tcpdiag.api", "iter_packets": "tcpdiag.api"}

__all__ = [
    "__version__",
    "analyze",
    "Analysis",
    "flows",
    "packets",
    "iter_packets",
    "CaptureError",
    "CaptureIOError",
    "NotACaptureError",
    "CaptureDamagedError",
    "CaptureWarning",
]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tcpdiag' has no attribute {name!r}")
