"""tcpdiag: why is this TCP transfer slow? Answers from a packet capture.

The public API is re-exported here; the compiled core is the private `tcpdiag._native`.
"""

from tcpdiag._native import __version__
from tcpdiag.api import flows, iter_packets, packets
from tcpdiag.errors import (
    CaptureDamagedError,
    CaptureError,
    CaptureIOError,
    CaptureWarning,
    NotACaptureError,
)

__all__ = [
    "__version__",
    "flows",
    "packets",
    "iter_packets",
    "CaptureError",
    "CaptureIOError",
    "NotACaptureError",
    "CaptureDamagedError",
    "CaptureWarning",
]
