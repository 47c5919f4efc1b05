"""`tcpdiag wireshark`: the Wireshark plugin that ships inside the package.

The plugin (one Lua file, docs/wireshark.md) shows the engine's per-packet analysis and
each flow's verdict in Wireshark, from the annotations `annotate` writes for a capture;
`tcpdiag wireshark FILE` annotates (cached) and opens the capture with both loaded.
`install` copies the plugin to the personal Lua plugins folder, `path` prints where it is.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from typing import TYPE_CHECKING

import click

from tcpdiag.cli.boundary import boundary, fail, finish, opened
from tcpdiag.errors import EXIT

if TYPE_CHECKING:
    from tcpdiag import tables

PLUGIN_NAME = "tcpdiag.lua"


def plugin_path() -> Path:
    """The plugin inside the installed package (a source checkout: wireshark-plugin/)."""
    from importlib import resources  # here: every command would pay its import at start-up

    packaged = Path(str(resources.files("tcpdiag") / "wireshark" / PLUGIN_NAME))
    if packaged.is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "wireshark-plugin" / PLUGIN_NAME
    return checkout if checkout.is_file() else packaged


def _tshark(*args: str) -> str:
    """What the installed tshark prints for `args` ("" without tshark)."""
    tshark = shutil.which("tshark")
    if tshark is None:
        return ""
    try:
        return subprocess.run([tshark, *args], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def wireshark_folders() -> dict[str, str]:
    """`tshark -G folders`: folder name → path."""
    out = {}
    for line in _tshark("-G", "folders").splitlines():
        name, _, value = line.partition(":")
        if value.strip():
            out[name.strip()] = value.strip()
    return out


def personal_plugins_dir() -> Path:
    """Wireshark's personal Lua plugins folder: what `tshark -G folders` reports, else the
    documented default (~/.local/lib/wireshark/plugins on Linux and macOS since
    Wireshark 2.5, %APPDATA%\\Wireshark\\plugins on Windows)."""
    folder = wireshark_folders().get("Personal Lua Plugins")
    if folder:
        return Path(folder)
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
    """See tcpdiag's analysis inside Wireshark: a Lua plugin shows the engine's results
    for the capture (its annotations) as a `tcpdiag` tree, filter fields (tcpdiag.limit,
    tcpdiag.retrans, tcpdiag.flow.verdict ...) and expert infos on every TCP packet.

    Example:

        tcpdiag wireshark samples/small_rcvbuf.sender.pcap.gz
    """


@wireshark.command("path")
@boundary
def path_cmd() -> None:
    """Print where the plugin file is (for `wireshark -X lua_script:PATH`).

    Example:

        tshark -r capture.pcapng -X lua_script:$(tcpdiag wireshark path) -Y tcpdiag.retrans
    """
    click.echo(str(plugin_path()))


PROBE = "tcpdiag-probe-loaded"
#: A pcap file header without packets (little-endian, version 2.4, Ethernet).
EMPTY_PCAP = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")


def root_skips_plugins() -> str | None:
    """Why the installed Wireshark will not load personal Lua plugins when run as root,
    or None (it loads them, or there is no tshark). Asked of tshark itself, with a
    one-line script: Wireshark runs user scripts for root only when a global init.lua
    sets `run_user_scripts_when_superuser = true` — 4.0 – 4.2 ship one in the global
    configuration folder, 4.4 and later ship none and read it from the global Lua
    plugins folder."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        probe, empty = Path(tmp) / "probe.lua", Path(tmp) / "empty.pcap"
        probe.write_text(f'io.stdout:write("{PROBE}\\n")\n')
        empty.write_bytes(EMPTY_PCAP)
        out = _tshark("-r", str(empty), "-X", f"lua_script:{probe}")
    first = _tshark("--version").split("\n", 1)[0]
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", first)
    if not first or PROBE in out or not found:
        return None
    version = tuple(int(x) for x in found.groups())
    folders = wireshark_folders()
    folder = folders.get("Global Lua Plugins" if version >= (4, 4) else "Global configuration")
    init = str(Path(folder) / "init.lua") if folder else "Wireshark's global init.lua"
    return (f"Wireshark {'.'.join(map(str, version))} skips personal Lua plugins when run as root: run Wireshark "
            f"as your own user (and `tcpdiag wireshark install` as that user), or add "
            f"`run_user_scripts_when_superuser = true` to {init}")


@wireshark.command("install")
@click.option("--dir", "target", type=click.Path(file_okay=False), default=None,
              help="Plugins folder (default: Wireshark's personal Lua plugins folder).")
@boundary
def install_cmd(target: str | None) -> None:
    """Copy the plugin to Wireshark's personal plugins folder; Wireshark loads it at start.
    Run as root, it warns when that Wireshark skips personal plugins for root (4.4 and later).

    Example:

        tcpdiag wireshark install
    """
    src = plugin_path()
    if not src.is_file():
        fail(f"the plugin is missing from this installation ({src}); reinstall tcpdiag", "input")
    folder = Path(target) if target else personal_plugins_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        dst = folder / PLUGIN_NAME
        shutil.copyfile(src, dst)
    except OSError as e:
        fail(f"{folder}: cannot install the plugin there: {e.strerror or e}", "output")
    click.echo(f"installed {dst}")
    click.echo("restart Wireshark (or Analyze → Reload Lua Plugins) to load it")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        why = root_skips_plugins()
        if why:
            click.echo(f"tcpdiag: warning: {why}", err=True)


def write_annotations(capture: str, output: str) -> "tables.ScanResult":
    """The engine's results for `capture`, as the plugin reads them, into `output`; a
    capture that cannot be read at all stops the command as `tcpdiag packets` would (a
    damaged one is annotated up to the damage: `finish` reports it)."""
    from tcpdiag import tables

    res = opened(tables.write_annotations(capture, output))
    write_error = res.extra.get("write_error")
    if write_error:
        fail(f"{output}: {write_error}", "output")
    return res


def annotations_cache(capture: str) -> Path:
    """Where `open` keeps the annotations of a capture: one file per path, size and mtime."""
    st = os.stat(capture)
    key = f"{os.path.abspath(capture)}\0{st.st_size}\0{st.st_mtime_ns}".encode()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tcpdiag" / "annotations"
    return base / (hashlib.sha256(key).hexdigest()[:32] + ".lua")


def preference(path: Path) -> str:
    """The `-o` option naming an annotations file for the plugin."""
    return f"tcpdiag.annotations:{path}"


@wireshark.command("annotate")
@click.argument("capture", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Annotations file (default: CAPTURE.tcpdiag.lua beside the capture).")
@boundary
def annotate_cmd(capture: str, output: str | None) -> None:
    """Write the engine's per-packet notes and flow verdicts for CAPTURE into the file the
    plugin shows (docs/wireshark.md, "Annotations"). Name it with the plugin's
    `annotations` preference, or a script argument in tshark.

    Example:

        tcpdiag wireshark annotate big.pcapng

        tshark -r big.pcapng -X lua_script:$(tcpdiag wireshark path) -X lua_script1:annotations=big.pcapng.tcpdiag.lua -Y 'tcpdiag.limit == "rwnd"'
    """
    out = output or f"{capture}.tcpdiag.lua"
    res = write_annotations(capture, out)
    click.echo(f"wrote {out}; use it with: -o {preference(Path(out).resolve())}", err=True)
    finish(res)


@wireshark.command("open")
@click.argument("capture", type=click.Path(dir_okay=False))
@click.option("--wireshark", "exe", default="wireshark", show_default=True, help="Wireshark executable.")
@boundary
def open_cmd(capture: str, exe: str) -> None:
    """Open CAPTURE in Wireshark with the plugin loaded (no install needed) and the
    engine's results for it (annotations, written once and cached per capture).

    Example:

        tcpdiag wireshark capture.pcapng
    """
    program = shutil.which(exe)
    if program is None:
        fail(f"{exe}: Wireshark is not installed or not on PATH (e.g. apt-get install wireshark); "
             f"or load the plugin yourself: wireshark -X lua_script:{plugin_path()} {capture}", "missing_program")
    if not Path(capture).is_file():
        fail(f"{capture}: no such file", "input")
    cached = annotations_cache(capture)
    if not cached.is_file():
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"{cached.parent}: cannot keep annotations there: {e.strerror or e}", "output")
        partial = cached.with_suffix(".part")
        res = write_annotations(capture, str(partial))
        os.replace(partial, cached)
        try:
            finish(res)
        except SystemExit as e:
            # Damaged: the frames before the damage are annotated; Wireshark shows those.
            if e.code != EXIT["damaged"]:
                raise
    args = [program, "-X", f"lua_script:{plugin_path()}", "-o", preference(cached), "-r", capture]
    if sys.platform == "win32":
        sys.exit(subprocess.call(args))
    os.execv(program, args)
