"""`tcpdiag wireshark`: the Wireshark plugin that ships inside the package.

The plugin (one Lua file, docs/wireshark.md) shows tcpdiag's per-packet analysis and each
flow's verdict in Wireshark: `install` copies it to the personal Lua plugins folder,
`path` prints where it is, `annotate` writes the engine's results for a capture so the
plugin shows them instead of analysing in Lua, and `tcpdiag wireshark FILE` does that and
opens the capture with the plugin loaded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import click

PLUGIN_NAME = "tcpdiag.lua"
EXIT_INPUT = 3      # docs/exit-codes.md
EXIT_DAMAGED = 5
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


def write_annotations(capture: str, output: str) -> None:
    """The engine's results for `capture`, as the plugin reads them, into `output`; a
    capture that cannot be read ends the command as `tcpdiag packets` would."""
    from tcpdiag import tables
    from tcpdiag.cli.boundary import finish, opened

    res = opened(tables.write_annotations(capture, output))
    write_error = res.extra.get("write_error")
    if write_error:
        _fail(f"{output}: {write_error}", EXIT_OUTPUT)
    finish(res)


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
def annotate_cmd(capture: str, output: str | None) -> None:
    """Write the engine's per-packet notes and flow verdicts for CAPTURE into a file the
    plugin shows instead of analysing in Lua: the same tree, the verdicts already on the
    first pass, and tshark runs several times faster. Name the file with the plugin's
    `annotations` preference.

    Example:

        tcpdiag wireshark annotate big.pcapng

        tshark -r big.pcapng -X lua_script:$(tcpdiag wireshark path) -o tcpdiag.annotations:big.pcapng.tcpdiag.lua -Y 'tcpdiag.limit == "rwnd"'
    """
    from tcpdiag.cli.boundary import boundary

    out = output or f"{capture}.tcpdiag.lua"
    boundary(write_annotations)(capture, out)
    click.echo(f"wrote {out}; use it with: -o {preference(Path(out).resolve())}", err=True)


@wireshark.command("open")
@click.argument("capture", type=click.Path(dir_okay=False))
@click.option("--wireshark", "exe", default="wireshark", show_default=True, help="Wireshark executable.")
@click.option("--lua-only", is_flag=True, help="Analyse in Lua inside Wireshark instead of loading the "
              "engine's annotations (slower; what the plugin does when installed on its own).")
def open_cmd(capture: str, exe: str, lua_only: bool) -> None:
    """Open CAPTURE in Wireshark with the plugin loaded (no install needed), showing the
    engine's results for it (annotations, cached per capture).

    Example:

        tcpdiag wireshark capture.pcapng
    """
    program = shutil.which(exe)
    if program is None:
        _fail(f"{exe}: Wireshark is not installed or not on PATH (e.g. apt-get install wireshark); "
              f"or load the plugin yourself: wireshark -X lua_script:{plugin_path()} {capture}", EXIT_MISSING_PROGRAM)
    if not Path(capture).is_file():
        _fail(f"{capture}: no such file", EXIT_INPUT)
    args = [program, "-X", f"lua_script:{plugin_path()}"]
    if not lua_only:
        from tcpdiag.cli.boundary import boundary

        cached = annotations_cache(capture)
        if not cached.is_file():
            try:
                cached.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                _fail(f"{cached.parent}: cannot keep annotations there: {e.strerror or e}", EXIT_OUTPUT)
            partial = cached.with_suffix(".part")
            try:
                boundary(write_annotations)(capture, str(partial))
            except SystemExit as e:
                if e.code != EXIT_DAMAGED:
                    raise
                # Damaged: the frames before the damage are annotated; Wireshark shows those too.
            os.replace(partial, cached)
        args += ["-o", preference(cached)]
    args += ["-r", capture]
    if sys.platform == "win32":
        sys.exit(subprocess.call(args))
    os.execv(program, args)
