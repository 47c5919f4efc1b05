"""Per-capture analyses on a Dask cluster (`pip install 'tcpdiag[cluster]'`).

Each capture (or group of merged pieces) is one task, `tcpdiag.fleet.flows_rows` (passed
in by tcpdiag.fleet), run
where a worker reads the file: the paths must be readable under the same names on every
worker (shared storage). Only the flows table with verdicts travels back, never packets.
Results are those of the local run: the task is the same function.
"""

from __future__ import annotations

from typing import Any, Callable


def _task(unit: str | list[str], fn: Callable, opts: dict[str, Any]):
    from tcpdiag.errors import CaptureError

    try:
        return fn(unit, **opts), None
    except CaptureError as e:
        return None, (e.file, str(e), e.exit_code)


def map_on_cluster(address: str, fn: Callable, units: list[str | list[str]],
                   **opts: Any) -> tuple[list, dict[str, tuple[str, int]]]:
    """Runs `fn(unit, **opts)` (tcpdiag.fleet.flows_rows) for each unit on the scheduler at
    `address` (`tcp://host:8786`); returns the tables in unit order and the errors by file."""
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - depends on the optional extra
        raise RuntimeError("--cluster needs dask.distributed: pip install 'tcpdiag[cluster]'") from e

    with Client(address, timeout="30s") as client:
        futures = client.map(_task, units, fn=fn, opts=opts, pure=False, key=[f"tcpdiag-{i}" for i in range(len(units))])
        results = client.gather(futures)
    parts, errors = [], {}
    for df, err in results:
        if err is not None:
            if opts.get("errors") == "raise":
                raise RuntimeError(err[1])
            errors[err[0]] = (err[1], err[2])
        else:
            parts.append(df)
    return parts, errors
