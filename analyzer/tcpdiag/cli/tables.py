"""`tcpdiag flows` and `tcpdiag packets`: the capture's tables, as Wireshark numbers them.
The tables load when a command runs (pyarrow), not when the CLI starts."""

from __future__ import annotations

import click

from tcpdiag.cli.boundary import boundary, capture_arg, fail, finish, opened
from tcpdiag.cli.convert import etl_component_option


@click.command()
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
    from tcpdiag import tables
    from tcpdiag.render import flows_csv, flows_json, flows_text

    res = opened(tables.scan_flows(capture))
    render = {"table": flows_text, "json": flows_json, "csv": flows_csv}[fmt]
    with click.open_file(output, "w") as out:
        render(res, out)
    finish(res)


@click.command()
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
    from tcpdiag import tables

    if fmt == "csv":
        res = opened(tables.write_packets_csv(capture, output, analysis))
        write_error = res.extra.get("write_error")
        if write_error and "Broken pipe" in write_error:
            raise BrokenPipeError  # the reader of our output went away (`| head`)
        if write_error:
            fail(f"{output}: {write_error}", "output")
    else:
        if output == "-":
            raise click.UsageError("--format parquet needs -o FILE")
        from tcpdiag.parquet import write_packets_parquet

        res = opened(write_packets_parquet(capture, output, analysis=analysis))
    finish(res)
