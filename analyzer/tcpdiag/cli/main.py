"""The `tcpdiag` command: a thin layer over the library and the reporters. Each command
lives in its own module of this package and is registered here; errors end at the one
boundary (tcpdiag.cli.boundary) as one line and a documented exit code.
"""

from __future__ import annotations

import importlib

import click

from tcpdiag import __version__

# Each command's module, imported only when that command runs (or help lists them all):
# `tcpdiag analyze` need not load the Wireshark installer, the comparison, the ETL
# converter or the live capture, nor what they import.
COMMANDS = {
    "flows": "tcpdiag.cli.tables:flows",
    "packets": "tcpdiag.cli.tables:packets",
    "analyze": "tcpdiag.cli.analyze:analyze",
    "compare": "tcpdiag.cli.compare:compare",
    "convert": "tcpdiag.cli.convert:convert",
    "wireshark": "tcpdiag.cli.wireshark:wireshark",
    "live": "tcpdiag.cli.fleet:live_command",
}


class _LazyCommands(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)  # as click lists a group's commands

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name].split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=_LazyCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tcpdiag")
def main() -> None:
    """Tells why a TCP transfer is slow, from a packet capture: pcap, pcapng, snoop, Peek,
    NetMon or Windows .etl; plain or gzip/zstd/xz/bzip2; a file, a FIFO, <(...) or - (stdin)."""
