"""The `tcpdiag` command: a thin layer over the library and the reporters. Each command
lives in its own module of this package and is registered here; errors end at the one
boundary (tcpdiag.cli.boundary) as one line and a documented exit code.
"""

from __future__ import annotations

import click

from tcpdiag import __version__
from tcpdiag.cli.analyze import analyze
from tcpdiag.cli.compare import compare
from tcpdiag.cli.convert import convert
from tcpdiag.cli.fleet import live_command
from tcpdiag.cli.tables import flows, packets
from tcpdiag.cli.wireshark import wireshark


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tcpdiag")
def main() -> None:
    """Tells why a TCP transfer is slow, from a packet capture: pcap, pcapng, snoop, Peek,
    NetMon or Windows .etl; plain or gzip/zstd/xz/bzip2; a file, a FIFO, <(...) or - (stdin)."""


for command in (flows, packets, analyze, compare, convert, wireshark, live_command):
    main.add_command(command)
