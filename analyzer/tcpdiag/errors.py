"""Errors about captures, raised by the API and turned into one line by the CLI.

Each carries the file, the byte offset and the number of frames read before the problem,
so a user can find the damage; `CaptureDamagedError.partial` holds what was readable.
"""

from __future__ import annotations

from typing import Any

#: Every exit code of the `tcpdiag` command, in one place (docs/exit-codes.md is checked
#: against this table by the tests).
EXIT = {
    "ok": 0,
    "internal": 1,
    "usage": 2,
    "input": 3,
    "not_a_capture": 4,
    "damaged": 5,
    "output": 6,
    "missing_program": 7,
    "interrupted": 130,
}


class CaptureError(ValueError):
    """A capture could not be read, or not completely."""

    #: Exit code the CLI uses for this class (see docs/exit-codes.md).
    exit_code = EXIT["not_a_capture"]

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

    exit_code = EXIT["input"]


class NotACaptureError(CaptureError):
    """Empty, not a capture at all, or a format/version tcpdiag does not read."""

    exit_code = EXIT["not_a_capture"]


class CaptureDamagedError(CaptureError):
    """The capture is truncated or corrupt part-way; `partial` holds the readable part."""

    exit_code = EXIT["damaged"]


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
