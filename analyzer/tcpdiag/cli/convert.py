"""`tcpdiag convert` and the `--etl-component` option shared by the commands that read
captures (Windows ETL traces: pktmon, `netsh trace capture=yes`; see docs/etl.md)."""

from __future__ import annotations

import functools
import os
import sys

import click

from tcpdiag import etl
from tcpdiag.cli.boundary import boundary
from tcpdiag.errors import CaptureDamagedError


def etl_component_option(fn):
    """Adds `--etl-component` to a command: which PktMon copies of each packet are read."""

    @click.option("--etl-component", "etl_component", default="auto", show_default=True, metavar="WHICH",
                  help="ETL traces: which PktMon copy of each packet to read - auto (per flow, the component "
                       "that logged its first packet), all (every copy: duplicates look like retransmissions), "
                       "first (first component met), a component id, or part of a component's name.")
    @functools.wraps(fn)
    def wrapper(*args, etl_component: str = "auto", **kwargs):
        with etl.component(etl_component):
            return fn(*args, **kwargs)

    return wrapper


@click.command()
@click.argument("trace", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="pcapng file to write ('-' = stdout; default: TRACE with the extension .pcapng).")
@click.option("--compat", type=click.Choice(["etl2pcapng"]), default=None,
              help="Write what microsoft/etl2pcapng writes, its known bugs included (every copy, every PktMon "
                   "packet inbound, raw-IP lengths 14 too long, comments over 255 bytes dropped).")
@click.option("--etl-component", "etl_component", default="auto", show_default=True, metavar="WHICH",
              help="Which PktMon copy of each packet to write: auto, all, first, a component id or name part "
                   "(default mode only).")
@click.option("--list-components", is_flag=True, help="Print the PktMon components of TRACE and exit.")
def convert(trace: str, output: str | None, compat: str | None, etl_component: str, list_components: bool) -> None:
    """Convert a Windows ETL packet trace (pktmon, netsh trace) to pcapng.

    The default mode fixes etl2pcapng's known bugs and, like `analyze`, keeps one copy
    of each PktMon packet; `--compat etl2pcapng` matches that tool's output.

    Example:

        tcpdiag convert PktMon.etl -o PktMon.pcapng --etl-component all
    """
    if compat and etl_component.lower() not in ("auto", "all"):
        raise click.UsageError("--compat etl2pcapng writes every copy; it takes no --etl-component")
    out = output or os.path.splitext(trace)[0] + ".pcapng"
    if os.path.abspath(out) == os.path.abspath(trace):
        raise click.UsageError("the output would overwrite the trace; give -o")
    boundary(_convert)(trace, out, compat, etl_component, list_components)


def _convert(trace: str, out: str, compat: str | None, etl_component: str, list_components: bool) -> None:
    if list_components:
        for cid, name, desc in etl.components(trace):
            click.echo(f"{cid}\t{name}\t{desc}")
        return
    res = etl.convert(trace, out, compat=compat, component=etl_component, errors="return")
    s = res["stats"]
    hidden = s.get("frames_filtered", 0)
    note = f", {hidden} PktMon copies not written (--etl-component {etl_component})" if hidden else ""
    click.echo(f"tcpdiag: wrote {res['frames']} packets on {res['interfaces']} interfaces to {out}{note}", err=True)
    if res["frames"] == 0 and res["error"] is None:
        click.echo(f"tcpdiag: warning: {trace}: the trace holds no packet events (pktmon 160/170, ndiscap 1001/1003)",
                   err=True)
    if res.get("comments_dropped"):
        click.echo(f"tcpdiag: warning: {res['comments_dropped']} comments of 256 bytes or more dropped, "
                   "as etl2pcapng does", err=True)
    err = res["error"]
    if err is not None:
        click.echo(f"tcpdiag: warning: {trace}: {err['message']}; the output holds the {res['frames']} packets before it",
                   err=True)
        sys.exit(CaptureDamagedError.exit_code)
