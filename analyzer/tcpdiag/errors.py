"""Errors about captures, raised by the API and turned into one line by the CLI.

Each carries the file, the byte offset and the number of frames read before the problem,
so a user can find the damage; `CaptureDamagedError.partial` holds what was readable.
"""

from __future__ import annotations

from typing import Any


class CaptureError(ValueError):
    """A capture could not be read, or not completely."""

    #: Exit code the CLI uses for this class (see docs/exit-codes.md).
    exit_code = 4

    def __init__(self, file: str, detail: str, *, kind: str = "", offset: int | None = None,
                 frames_read: int = 0, partial: Any = None) -> None:
        self.file = file
        self.detail = detail
        self.kind = kind
        self.offset = offset
        self.frames_read = frames_read
        self.partial = partial
        super().__init__(f"{file}: {detail}")


class CaptureIOError(CaptureError, OSError):
    """The file could not be opened or read (missing, permissions, I/O error)."""

    exit_code = 3


class NotACaptureError(CaptureError):
    """Empty, not a capture at all, or a format/version tcpdiag does not read."""

    exit_code = 4


class CaptureDamagedError(CaptureError):
    """The capture is truncated or corrupt part-way; `partial` holds the readable part."""

    exit_code = 5


class CaptureWarning(UserWarning):
    """Issued instead of `CaptureDamagedError` when the caller asked for partial results."""


_CLASSES = {
    "io": CaptureIOError,
    "empty": NotACaptureError,
    "not_a_capture": NotACaptureError,
    "unsupported": NotACaptureError,
    "truncated": CaptureDamagedError,
    "corrupt": CaptureDamagedError,
}


def from_native(file: str, err: dict, partial: Any = None) -> CaptureError:
    """Builds the exception for an `error` dict returned by the native core."""
    cls = _CLASSES.get(err["kind"], CaptureDamagedError)
    return cls(file, err["message"], kind=err["kind"], offset=err["offset"],
               frames_read=err["frames_read"], partial=partial)
