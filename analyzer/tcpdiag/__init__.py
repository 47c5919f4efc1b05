"""tcpdiag: why is this TCP transfer slow? Answers from a packet capture.

The public API is re-exported here; the compiled core is the private `tcpdiag._native`.
`analyze` gives an `Analysis` (data); the reporters are functions over it: `text_report`
(text), `plot` (plotly figures), `write_html`. `compare(a, b)` gives a `Comparison` of two
captures of one transfer; `compare_report` words it. pandas- and plotly-based functions
load on first use, so the CLI starts without them.
"""

import os

# The native module's allocator (mimalloc) asks for transparent huge pages on its arenas,
# so each thread's partly used 2 MiB pages counted whole: `analyze -j 2` on a 6.6M-packet
# capture peaked at 96 MB in the native call, 58 MB without (same CPU). Read as the module
# loads; set MIMALLOC_ALLOW_THP=1 to keep them.
os.environ.setdefault("MIMALLOC_ALLOW_THP", "0")

from tcpdiag._native import __version__  # noqa: E402
from tcpdiag.errors import (
    CaptureDamagedError,
    CaptureError,
    CaptureIOError,
    CaptureWarning,
    NotACaptureError,
)

_LAZY = {
    "analyze": ("tcpdiag.analysis", "analyze"),
    "Analysis": ("tcpdiag.analysis", "Analysis"),
    "flows": ("tcpdiag.api", "flows"),
    "packets": ("tcpdiag.api", "packets"),
    "iter_packets": ("tcpdiag.api", "iter_packets"),
    "text_report": ("tcpdiag.report.text", "report"),
    "plot": ("tcpdiag.report.figures", "plot"),
    "write_html": ("tcpdiag.report.html", "write"),
    "compare": ("tcpdiag.comparison", "compare"),
    "Comparison": ("tcpdiag.comparison", "Comparison"),
    "compare_report": ("tcpdiag.report.compare", "text"),
}

__all__ = [
    "__version__",
    "analyze",
    "Analysis",
    "flows",
    "packets",
    "iter_packets",
    "text_report",
    "plot",
    "write_html",
    "compare",
    "Comparison",
    "compare_report",
    "CaptureError",
    "CaptureIOError",
    "NotACaptureError",
    "CaptureDamagedError",
    "CaptureWarning",
]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'tcpdiag' has no attribute {name!r}")
