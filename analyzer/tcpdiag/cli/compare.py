"""`tcpdiag compare A B`: two captures of the same transfer, and where on the path between
them the trouble is. A thin layer: the engine compares and words, tcpdiag.report.compare
arranges. Imports neither pandas nor plotly unless --html asks.
"""

from __future__ import annotations

import os
import sys
import warnings

import click

from tcpdiag.cli.boundary import boundary, fail, finish, opened
from tcpdiag.errors import CaptureWarning


def _colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _names(value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if len(parts) != 2 or not all(parts):
        raise click.BadParameter("two names separated by a comma, e.g. client,server", param_hint="--names")
    return parts[0], parts[1]


@click.command()
@click.argument("capture_a", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("capture_b", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--names", metavar="A,B", help="Names of the two captures in the report (default A,B), e.g. client,server.")
@click.option("--all", "show_all", is_flag=True, help="List every pair (the first 20, problems first, by default).")
@click.option("--json", "as_json", is_flag=True, help="Write the JSON document (docs/compare.md) to stdout.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a self-contained HTML report with one-way delay and loss graphs per direction "
                   "(needs the 'report' extra: plotly).")
@click.option("-q", "--quiet", is_flag=True, help="No report on stdout (with --html); errors still shown.")
@boundary
def compare(capture_a: str, capture_b: str, names: str | None, show_all: bool, as_json: bool,
            html_file: str | None, quiet: bool) -> None:
    """Compare two captures of the same transfer (client and server, or either and a
    middlebox) and tell WHERE the trouble is: losses between the capture points or outside
    them, reordering introduced between them, each direction's one-way delay, and header
    fields a middlebox changed (NAT, ISN, window scale, MSS, window, TTL, DSCP/ECN).

    Flows are matched also through NAT and ISN randomisation; flows seen in one capture
    only are listed. Evidence frames are given for both captures.

    Example:

        tcpdiag compare client.pcapng server.pcapng --names client,server
    """
    if capture_a == "-" and capture_b == "-":
        fail("standard input can be only one of the two captures", "usage")
    if html_file:
        try:
            import plotly  # noqa: F401
        except ImportError:
            raise click.UsageError("--html needs plotly: pip install 'tcpdiag[report]'") from None
    from tcpdiag.comparison import Comparison
    from tcpdiag.report import compare as report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CaptureWarning)
        c = Comparison(capture_a, capture_b, names=_names(names), fates=bool(html_file), errors="warn")
    for res in (c.a, c.b):
        opened(res)
    if as_json:
        report.write_json(report.document(c, show_all=True), sys.stdout)
    elif not quiet:
        report.text(c, sys.stdout, show_all=show_all, colour=_colour())
    if html_file:
        from tcpdiag.report import compare_html

        compare_html.write(c, html_file)
    for res in (c.a, c.b):
        if res.error is not None or res.warnings():
            finish(res)
