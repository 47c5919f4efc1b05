"""CLI for scale: `tcpdiag analyze` over many captures / cores / a Dask cluster, and
`tcpdiag live`. Commands call `tcpdiag.fleet` / `tcpdiag.live` and print; nothing else.

`fleet_options` is the option group `tcpdiag analyze` takes for them.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from tcpdiag.cli.boundary import boundary, fail
from tcpdiag.units import fmt


def fleet_options(fn):
    """The options `tcpdiag analyze` takes for many captures, cores and clusters."""
    opts = [
        click.option("-j", "--jobs", type=click.IntRange(1, 256), default=1, show_default=True,
                     help="Analysis threads per capture (results are identical for any N)."),
        click.option("--merge", is_flag=True,
                     help="Treat the captures as rotated pieces of one capture (tcpdump -C/-G): frames merged by time."),
        click.option("--cluster", metavar="tcp://HOST:PORT",
                     help="Dask scheduler: one task per capture on its workers (needs tcpdiag[cluster])."),
        click.option("--filter", "bpf", metavar="EXPR",
                     help="tcpdump filter (pcap-filter(7)); frame numbers stay those of the unfiltered file."),
        click.option("--idle-timeout", type=float, default=0.0, show_default=True, metavar="SECONDS",
                     help="Judge a flow that carried data and free its state after this much capture time without "
                          "a packet: bounds memory on long captures of many idle flows (0 = never: every flow is "
                          "judged whole; flows that never carried data are judged once closed)."),
        click.option("--top", type=int, default=20, show_default=True,
                     help="Flows shown in a fleet summary (0 = all)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def is_fleet(captures: tuple[str, ...], merge: bool, cluster: str | None) -> bool:
    """Several captures, a glob, rotated pieces or a cluster: the fleet summary."""
    return len(captures) > 1 or merge or bool(cluster) or any(c in captures[0] for c in "*?[")


def run_fleet(captures: tuple[str, ...], *, merge: bool, cluster: str | None, vantage: str,
              csv_dir: str | None, parquet_dir: str | None, top: int, **scale: Any) -> None:
    """Analyses every capture and prints the fleet summary; `--csv/--parquet DIR` get
    `flows.csv` / `flows.parquet` (one table, a `capture` column first)."""
    import os

    from tcpdiag.fleet import analyze_fleet

    if merge and cluster:
        fail("--merge reads the pieces as one capture on this machine; drop --cluster", "usage")
    try:
        fleet = analyze_fleet(captures, merge=merge, cluster=cluster, vantage=None if vantage == "auto" else vantage,
                              errors="warn", **scale)
    except ValueError as e:
        if "filter" not in str(e):
            raise
        fail(str(e), "usage")
    df = fleet.flows
    for fmt, directory in (("csv", csv_dir), ("parquet", parquet_dir)):
        if directory:
            os.makedirs(directory, exist_ok=True)
            out = os.path.join(directory, f"flows.{fmt}")
            df.to_csv(out, index=False) if fmt == "csv" else df.to_parquet(out, index=False)
    _print_summary(fleet, top)
    for w in fleet.warnings:
        click.echo(f"tcpdiag: warning: {w}", err=True)
    for msg, _ in fleet.errors.values():
        click.echo(f"tcpdiag: error: {msg}", err=True)
    if fleet.errors:
        sys.exit(max(code for _, code in fleet.errors.values()))


def _print_summary(fleet, top: int) -> None:
    df = fleet.flows
    captures = df["capture"].nunique() if len(df) else 0
    click.echo(f"{len(df)} flows in {captures} capture(s), worst first")
    shown = df if top == 0 else df.head(top)
    for r in shown.itertuples(index=False):
        click.echo(f"  {r.capture}  stream {r.stream}  {r.a_addr}:{r.a_port} -> {r.b_addr}:{r.b_port}  "
                   f"{r.verdict}  lost {fmt('seconds', r.limited_s)}  {fmt('rate', r.goodput_bps)}")
        click.echo(f"      {r.message}")
    hosts = fleet.hosts
    if len(hosts):
        click.echo("by server and verdict:")
        for h in hosts.head(top or len(hosts)).itertuples(index=False):
            click.echo(f"  {h.b_addr}  {h.verdict}  {h.flows} flow(s)  lost {fmt('seconds', h.limited_s)}")


@click.command("live")
@click.option("-i", "--interface", "iface", required=True, help="Interface to capture on.")
@click.option("--filter", "bpf", metavar="EXPR", help="tcpdump filter, run in the kernel.")
@click.option("--refresh", type=float, default=2.0, show_default=True, help="Seconds between updates.")
@click.option("--duration", type=float, help="Stop after this many seconds (default: until Ctrl-C).")
@click.option("--idle-timeout", type=float, default=300.0, show_default=True, metavar="SECONDS",
              help="Forget flows idle this long (0 = never).")
@click.option("--vantage", type=click.Choice(["auto", "sender", "receiver", "middle"]), default="auto", show_default=True)
@boundary
def live_command(iface: str, bpf: str | None, refresh: float, duration: float | None, idle_timeout: float,
                 vantage: str) -> None:
    """Capture on an interface and print the verdicts of active flows as they become
    clear, every few seconds, until Ctrl-C; then a final report of every flow.

    Example:

        tcpdiag live -i eth0 --filter 'tcp port 443' --duration 60
    """
    from tcpdiag.live import LiveRun

    try:
        run = LiveRun(iface, filter=bpf, vantage=None if vantage == "auto" else vantage,
                      idle_timeout=idle_timeout if idle_timeout > 0 else None)
    except ValueError as e:
        fail(str(e), "usage")
    try:
        for snap in run.snapshots(refresh=refresh, duration=duration):
            rows = [r for r in snap.rows() if r["verdict"] != "not_limited" or r["packets_ab"] + r["packets_ba"] > 20]
            click.echo(f"[{snap.elapsed_s:6.1f} s] {snap.flows.num_rows} active flow(s), {snap.stats['frames']} frames")
            for r in rows:
                click.echo(f"  stream {r['stream']}  {r['a_addr']}:{r['a_port']} -> {r['b_addr']}:{r['b_port']}  "
                           f"{r['verdict']}  {fmt('rate', r['goodput_bps'])}")
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a live run normally ends: the final report below is the result.
    final = run.finish()
    click.echo(f"final: {final.flows.num_rows} flow(s)")
    for r in final.flows.select(["stream", "a_addr", "a_port", "b_addr", "b_port", "verdict", "message"]).to_pylist():
        click.echo(f"  stream {r['stream']}  {r['a_addr']}:{r['a_port']} -> {r['b_addr']}:{r['b_port']}  "
                   f"{r['verdict']}: {r['message']}")


