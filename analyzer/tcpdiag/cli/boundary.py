"""The CLI's one error boundary: every failure ends as one line on stderr and an exit
code from `tcpdiag.errors.EXIT` (docs/exit-codes.md); a traceback only with
TCPDIAG_DEBUG=1. Commands raise; only this module prints errors and exits.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING

import click

from tcpdiag.errors import EXIT, CaptureError

if TYPE_CHECKING:
    from tcpdiag import tables


class Failure(Exception):
    """A failure the command words itself: one line and the exit code it maps to."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = EXIT[code]


def fail(message: str, code: str) -> None:
    """Stops the command with `message` and the exit code named `code` in EXIT."""
    raise Failure(message, code)


def _stop(msg: str, code: int) -> None:
    click.echo(f"tcpdiag: error: {msg}", err=True)
    sys.exit(code)


def boundary(fn):
    """Turns every failure of a command into one line and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Failure as e:
            _stop(str(e), e.code)
        except CaptureError as e:
            _stop(str(e), e.exit_code)
        except BrokenPipeError:
            # Reader of our stdout went away (`| head`): not an error of ours.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(EXIT["ok"])
        except KeyboardInterrupt:
            _stop("interrupted", EXIT["interrupted"])
        except (click.exceptions.Exit, click.ClickException):
            raise
        except OSError as e:
            _stop(f"{e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}", EXIT["output"])
        except Exception as e:  # noqa: BLE001 - the boundary: report, don't dump a traceback
            if os.environ.get("TCPDIAG_DEBUG"):
                raise
            _stop(f"internal error: {type(e).__name__}: {e} (set TCPDIAG_DEBUG=1 for details)", EXIT["internal"])

    return wrapper


def opened(res: "tables.ScanResult") -> "tables.ScanResult":
    """Stops before writing anything when the capture yielded nothing usable."""
    if res.error is not None and not res.partial:
        raise res.error
    nothing = res.nothing_decodable()
    if nothing is not None:
        raise nothing
    return res


def finish(res: "tables.ScanResult") -> None:
    """Reports skipped frames and damage after the (partial) results were written, and
    exits accordingly."""
    for line in res.warnings():
        click.echo(f"tcpdiag: warning: {line}", err=True)
    err = res.error
    if err is None:
        return
    if res.partial and err.frames_read:
        click.echo(f"tcpdiag: warning: {err}; results cover the {err.frames_read} frames before it", err=True)
    else:
        click.echo(f"tcpdiag: error: {err}", err=True)
    sys.exit(err.exit_code)


capture_arg = click.argument("capture", type=click.Path(dir_okay=False, allow_dash=True))
