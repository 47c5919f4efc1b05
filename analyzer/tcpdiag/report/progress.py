"""A progress line on stderr while the core reads a large capture (TTY only).

The core reads the file in native code without callbacks; on Linux the read position of
its file descriptor (/proc/self/fdinfo) gives the progress for free. Elsewhere, or for a
pipe, only the elapsed time is shown.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable

#: Smaller captures finish before a bar would be worth drawing.
MIN_BYTES = 64 << 20
_WIDTH = 30


def _position(path: str) -> Callable[[], int | None]:
    real = os.path.realpath(path)

    def pos() -> int | None:
        try:
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if os.readlink(f"/proc/self/fd/{fd}") != real:
                        continue
                    with open(f"/proc/self/fdinfo/{fd}") as f:
                        for line in f:
                            if line.startswith("pos:"):
                                return int(line.split()[1])
                except OSError:
                    continue
        except OSError:
            pass
        return None

    return pos


class Progress:
    """`with Progress(path, "analysing"):` draws while the body runs, then erases itself."""

    def __init__(self, path: str, label: str, *, enabled: bool | None = None) -> None:
        try:
            self.size = os.path.getsize(path)
        except OSError:
            self.size = 0
        if enabled is None:
            enabled = sys.stderr.isatty() and self.size >= MIN_BYTES
        self.enabled = enabled
        self.label = label
        self._pos = _position(path)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _line(self, elapsed: float) -> str:
        pos = self._pos()
        if pos is None or not self.size:
            return f"\r{self.label}: {elapsed:.0f} s"
        frac = min(pos / self.size, 1.0)
        bar = "#" * int(frac * _WIDTH)
        return f"\r{self.label} [{bar:<{_WIDTH}}] {frac:4.0%} of {self.size / 1e6:,.0f} MB, {elapsed:.0f} s"

    def _run(self) -> None:
        t0 = time.monotonic()
        while not self._stop.wait(0.25):
            sys.stderr.write(self._line(time.monotonic() - t0))
            sys.stderr.flush()

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            sys.stderr.write("\r" + " " * (_WIDTH + 60) + "\r")
            sys.stderr.flush()
