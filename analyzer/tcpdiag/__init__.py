"""tcpdiag: why is this TCP transfer slow? Answers from a packet capture.

The public API is re-exported here; the compiled core is the private `tcpdiag._native`.
`analyze` gives an `Analysis` (data); the reporters are functions over it: `text_report`
(text), `plot` (plotly figures), `write_html`. pandas- and plotly-based functions load on
first use, so the CLI starts without them.
"""

from tcpdiag._native import __version__
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
