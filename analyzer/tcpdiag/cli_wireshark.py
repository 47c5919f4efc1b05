"""`tcpdiag wireshark`: the Wireshark plugin that ships inside the package.

The plugin (one Lua file, docs/wireshark.md) shows tcpdiag's per-packet analysis and each
flow's verdict in Wireshark: `install` copies it to the personal Lua plugins folder,
`path` prints where it is, and `tcpdiag wireshark FILE` opens a capture with it loaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import click

PLUGIN_NAME = "tcpdiag.lua"
EXIT_INPUT = 3      # docs/exit-codes.md
EXIT_OUTPUT = 6
EXIT_MISSING_PROGRAM = 7


def _fail(msg: str, code: int) -> None:
    click.echo(f"tcpdiag: error: {msg}", err=True)
    sys.exit(code)


def plugin_path() -> Path:
    """The plugin inside the installed package (a source checkout: wireshark-plugin/)."""
    packaged = Path(str(resources.files("tcpdiag") / "wireshark" / PLUGIN_NAME))
    if packaged.is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "wireshark-plugin" / PLUGIN_NAME
    return checkout if checkout.is_file() else packaged


def personal_plugins_dir() -> Path:
    """Wireshark's personal Lua plugins folder: what `tshark -G folders` reports, else the
    documented default (~/.local/lib/wireshark/plugins on Linux and macOS since
    Wireshark 2.5, %APPDATA%\\Wireshark\\plugins on Windows)."""
    tshark = shutil.which("tshark")
    if tshark:
        try:
            out = subprocess.run([tshark, "-G", "folders"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            name, _, value = line.partition(":")
            if name.strip() == "Personal Lua Plugins" and value.strip():
                return Path(value.strip())
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home())) / "Wireshark" / "plugins"
    return Path.home() / ".local" / "lib" / "wireshark" / "plugins"


class _CaptureOrCommand(click.Group):
    """`tcpdiag wireshark FILE` is `tcpdiag wireshark open FILE`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["open", *args]
        return super().parse_args(ctx, args)


@click.group("wireshark", cls=_CaptureOrCommand)
def wireshark() -> None:
    """See tcpdiag's analysis inside Wireshark: a Lua plugin adding a `tcpdiag` tree,
    filter fields (tcpdiag.limit, tcpdiag.retrans, tcpdiag.flow.verdict ...) and expert
    infos to every TCP packet.

    Example:

        tcpdiag wireshark samples/small_rcvbuf.sender.pcap.gz
    """


@wireshark.command("path")
def path_cmd() -> None:
    """Print where the plugin file is (for `wireshark -X lua_script:PATH`).

    Example:

        tshark -r capture.pcapng -X lua_script:$(tcpdiag wireshark path) -Y tcpdiag.retrans
    """
    click.echo(str(plugin_path()))


@wireshark.command("install")
@click.option("--dir", "target", type=click.Path(file_okay=False), default=None,
              help="Plugins folder (default: Wireshark's personal Lua plugins folder).")
def install_cmd(target: str | None) -> None:
    """Copy the plugin to Wireshark's personal plugins folder; Wireshark loads it at start.

    Example:

        tcpdiag wireshark install
    """
    src = plugin_path()
    if not src.is_file():
        _fail(f"the plugin is missing from this installation ({src}); reinstall tcpdiag", EXIT_INPUT)
    folder = Path(target) if target else personal_plugins_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        dst = folder / PLUGIN_NAME
        shutil.copyfile(src, dst)
    except OSError as e:
        _fail(f"{folder}: cannot install the plugin there: {e.strerror or e}", EXIT_OUTPUT)
    click.echo(f"installed {dst}")
    click.echo("restart Wireshark (or Analyze → Reload Lua Plugins) to load it")


@wireshark.command("open")
@click.argument("capture", type=click.Path(dir_okay=False))
@click.option("--wireshark", "exe", default="wireshark", show_default=True, help="Wireshark executable.")
def open_cmd(capture: str, exe: str) -> None:
    """Open CAPTURE in Wireshark with the plugin loaded (no install needed).

    Example:

        tcpdiag wireshark capture.pcapng
    """
    program = shutil.which(exe)
    if program is None:
        _fail(f"{exe}: Wireshark is not installed or not on PATH (e.g. apt-get install wireshark); "
              f"or load the plugin yourself: wireshark -X lua_script:{plugin_path()} {capture}", EXIT_MISSING_PROGRAM)
    if not Path(capture).is_file():
        _fail(f"{capture}: no such file", EXIT_INPUT)
    args = [program, "-X", f"lua_script:{plugin_path()}", "-r", capture]
    if sys.platform == "win32":
        sys.exit(subprocess.call(args))
    os.execv(program, args)
