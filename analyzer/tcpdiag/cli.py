"""The `tcpdiag` command line: a thin layer over `tcpdiag.tables` and the reporters.

Errors end as one line on stderr and a documented exit code (docs/exit-codes.md); a
traceback only with TCPDIAG_DEBUG=1.
"""

from __future__ import annotations

import functools
import os
import sys

import click

from tcpdiag import __version__, tables
from tcpdiag.cli_convert import convert, etl_component_option
from tcpdiag.errors import CaptureError
from tcpdiag.render import flows_csv, flows_json, flows_text

EXIT_INTERNAL = 1
EXIT_OUTPUT = 6
EXIT_INTERRUPTED = 130


def _fail(msg: str, code: int) -> None:
    click.echo(f"tcpdiag: error: {msg}", err=True)
    sys.exit(code)


def boundary(fn):
    """Turns every failure into one line and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CaptureError as e:
            _fail(str(e), e.exit_code)
        except BrokenPipeError:
            # Reader of our stdout went away (`| head`): not an error of ours.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPTED)
        except (click.exceptions.Exit, click.ClickException):
            raise
        except OSError as e:
            _fail(f"{e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}", EXIT_OUTPUT)
        except Exception as e:  # noqa: BLE001 - the boundary: report, don't dump a traceback
            if os.environ.get("TCPDIAG_DEBUG"):
                raise
            _fail(f"internal error: {type(e).__name__}: {e} (set TCPDIAG_DEBUG=1 for details)", EXIT_INTERNAL)

    return wrapper


def opened(res: tables.ScanResult) -> tables.ScanResult:
    """Stops before writing anything when the capture yielded nothing usable."""
    if res.error is not None and not res.partial:
        raise res.error
    nothing = res.nothing_decodable()
    if nothing is not None:
        raise nothing
    return res


def finish(res: tables.ScanResult) -> None:
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tcpdiag")
def main() -> None:
    """Tells why a TCP transfer is slow, from a packet capture: pcap, pcapng, snoop, Peek,
    NetMon or Windows .etl; plain or gzip/zstd/xz/bzip2; a file, a FIFO, <(...) or - (stdin)."""


@main.command()
@capture_arg
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", help="Output file ('-' = stdout).")
@etl_component_option
@boundary
def flows(capture: str, fmt: str, output: str) -> None:
    """List the TCP flows of CAPTURE, numbered as Wireshark's tcp.stream.

    Example:

        tcpdiag flows samples/clean_bulk.sender.pcap.gz --format json
    """
    res = opened(tables.scan_flows(capture))
    render = {"table": flows_text, "json": flows_json, "csv": flows_csv}[fmt]
    with click.open_file(output, "w") as out:
        render(res, out)
    finish(res)


@main.command()
@capture_arg
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Output file ('-' = stdout; parquet needs a file).")
@click.option("--analysis", is_flag=True,
              help="Add the analysis columns (rwnd, in_flight, cwnd, limit, retrans, dsack, ... see docs/tables.md).")
@etl_component_option
@boundary
def packets(capture: str, fmt: str, output: str, analysis: bool) -> None:
    """Write one row per TCP segment of CAPTURE (the values tshark shows for
    frame.number, tcp.stream, tcp.seq_raw, tcp.ack_raw, tcp.len, tcp.flags,
    tcp.window_size_value ...).

    Example:

        tcpdiag packets samples/clean_bulk.sender.pcap.gz --analysis -o packets.csv
    """
    if fmt == "csv":
        res = opened(tables.write_packets_csv(capture, output, analysis))
        write_error = res.extra.get("write_error")
        if write_error and "Broken pipe" in write_error:
            sys.exit(0)  # the reader of our output went away (`| head`)
        if write_error:
            _fail(f"{output}: {write_error}", EXIT_OUTPUT)
    else:
        if output == "-":
            raise click.UsageError("--format parquet needs -o FILE")
        from tcpdiag.parquet import write_packets_parquet

        res = opened(write_packets_parquet(capture, output, analysis=analysis))
    finish(res)


main.add_command(convert)
from tcpdiag.cli_wireshark import wireshark  # noqa: E402  (the `tcpdiag wireshark` group)
main.add_command(wireshark)

if __name__ == "__main__":
    # Run the importable instance of this module: commands defined elsewhere register there.
    from tcpdiag.cli import main as _main

    _main()
else:
    # Commands defined in their own modules use the helpers above.
    from tcpdiag import cli_scale
    from tcpdiag.cli_analyze import analyze

    main.add_command(analyze)
    cli_scale.register(main)
