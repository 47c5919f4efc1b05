"""`tcpdiag analyze`: the diagnosis of every flow, as a terminal report, JSON, tables or
an HTML page. A thin layer: the library diagnoses, tcpdiag.report presents.

Imports neither pandas nor plotly unless an option needs them (--csv, --parquet, --html).
"""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import contextmanager
from typing import Iterator

import click

from tcpdiag import units
from tcpdiag.cli.boundary import boundary, finish, opened
from tcpdiag.cli.fleet import fleet_options, is_fleet, run_fleet
from tcpdiag.errors import CaptureWarning

VANTAGES = ["auto", "sender", "receiver", "middle"]


@contextmanager
def _readable_twice(capture: str, twice: bool) -> Iterator[str]:
    """A path the capture can be read from as often as needed. Graphs and tables (`twice`)
    read it a second time: standard input, a FIFO or a `<(...)` pipe, which can be read
    only once, are then spooled to a temporary file (opened once, copied once)."""
    from tcpdiag.tables import rereadable

    if not twice or rereadable(capture):
        yield capture
        return
    import shutil  # here: only a spooled input needs them (3 ms of every start-up)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix="tcpdiag-input-", suffix=".cap")
    try:
        with os.fdopen(fd, "wb") as f:
            if capture == "-":
                shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
            else:
                with open(capture, "rb") as src:
                    shutil.copyfileobj(src, f, 1 << 20)
        yield tmp
    finally:
        os.unlink(tmp)


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _parsed(fn, value: str | None, param: str):
    if value is None:
        return None
    try:
        return fn(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=param) from None


@click.command()
@click.argument("captures", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--flow", "flow_spec", metavar="N|IP:PORT-IP:PORT",
              help="Only this flow: a Wireshark tcp.stream number or its two endpoints (IPv6 in brackets).")
@click.option("--all", "show_all", is_flag=True, help="Also show short flows (hidden by default).")
@click.option("--min-bytes", default="100k", show_default=True, metavar="SIZE",
              help="Hide flows that carried less data than this (e.g. 10k, 1M).")
@click.option("--target-rate", metavar="RATE",
              help="State the window this path needs for RATE (e.g. 1G, 250M).")
@click.option("--vantage", type=click.Choice(VANTAGES), default="auto", show_default=True,
              help="Where the capture was taken; auto infers it per flow.")
@click.option("--json", "as_json", is_flag=True, help="Write the JSON document (docs/json-schema.md) to stdout.")
@click.option("--csv", "csv_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the flows, findings, packets, events and series tables as CSV files into DIR.")
@click.option("--parquet", "parquet_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the same five tables as Parquet files into DIR.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a self-contained HTML report with graphs (needs the 'report' extra: plotly).")
@click.option("-q", "--quiet", is_flag=True, help="No report on stdout (with --html/--csv/--parquet); errors still shown.")
@fleet_options
@boundary
def analyze(captures: tuple[str, ...], flow_spec: str | None, show_all: bool, min_bytes: str,
            target_rate: str | None, vantage: str, as_json: bool, csv_dir: str | None, parquet_dir: str | None,
            html_file: str | None, quiet: bool, jobs: int, merge: bool, cluster: str | None, bpf: str | None,
            idle_timeout: float, top: int) -> None:
    """Tell why each TCP flow of the CAPTURES is slow, worst flow first.

    Per flow: the verdict in words, the share of time in each limit, the window ÷ RTT
    arithmetic, a remedy, and frame numbers to open in Wireshark (frame.number == N).
    Short flows are hidden unless --all. Several captures (or globs, or --merge, or
    --cluster) give the fleet summary instead: one flows table, worst first.

    Example:

        tcpdiag analyze samples/small_rcvbuf.sender.pcap.gz --target-rate 1G

        tcpdiag analyze capture.pcapng --flow 3 --html report.html

        tcpdiag analyze -j 2 'captures/*.pcapng' --csv fleet/
    """
    scale = {"jobs": jobs, "filter": bpf, "idle_timeout": idle_timeout if idle_timeout > 0 else None}
    if is_fleet(captures, merge, cluster):
        run_fleet(captures, merge=merge, cluster=cluster, vantage=vantage, csv_dir=csv_dir,
                  parquet_dir=parquet_dir, top=top, target_rate=target_rate, **scale)
        return
    capture = captures[0]
    # The default single-threaded path needs no scale arguments at all.
    scale = {k: v for k, v in scale.items() if v not in (None, 1)}
    target_bps = _parsed(units.parse_rate, target_rate, "--target-rate")
    min_b = _parsed(units.parse_size, min_bytes, "--min-bytes")
    if html_file:
        try:
            import plotly  # noqa: F401
        except ImportError:
            raise click.UsageError("--html needs plotly: pip install 'tcpdiag[report]'") from None
    from tcpdiag.analysis import Analysis
    from tcpdiag.report import model
    from tcpdiag.report.progress import Progress
    from tcpdiag.selection import select_streams

    with _readable_twice(capture, twice=bool(csv_dir or parquet_dir or html_file)) as path:
        with warnings.catch_warnings(), Progress(path, "analysing", enabled=None if not quiet else False):
            # Damage is reported once by finish(), after the results for the readable part.
            warnings.simplefilter("ignore", CaptureWarning)
            try:
                a = Analysis(path, vantage=None if vantage == "auto" else vantage, target_rate=target_bps,
                             errors="warn", **scale)
            except ValueError as e:
                if not bpf or "filter" not in str(e):
                    raise
                raise click.UsageError(str(e)) from None
        res = opened(a.scan)
        streams = None
        if flow_spec is not None:
            streams = _parsed(lambda s: select_streams(a.flow_batches, s), flow_spec, "--flow")
        shown = model.build(a, min_bytes=min_b, show_all=show_all, streams=streams)
        name = "-" if capture == "-" else capture
        if as_json:
            from tcpdiag.report import jsondoc

            doc = jsondoc.document(shown, capture=name, stats=a.stats, error=res.error, vantage=vantage,
                                   target_bps=target_bps)
            jsondoc.write(doc, sys.stdout)
        elif not quiet:
            from tcpdiag.report import text

            text.render(shown, sys.stdout, capture=name, colour=_colour(), stats=a.stats)
        if csv_dir or parquet_dir:
            from tcpdiag.report import export

            with Progress(path, "writing tables", enabled=None if not quiet else False):
                for fmt, directory in (("csv", csv_dir), ("parquet", parquet_dir)):
                    if directory:
                        export.write(a, directory, fmt, streams)
        if html_file:
            from tcpdiag.report import html

            with Progress(path, "reading packets", enabled=None if not quiet else False):
                html.write(a, html_file, shown=shown, title=name)
        sys.stdout.flush()
        finish(res)
