"""Every tshark the plugin is tested on: the host's (Debian 12: 4.0, Lua 5.2) and those
tools/wireshark-chroot.sh keeps in Debian chroots (13: 4.4, Lua 5.4; testing: 4.6) — each
run as an unprivileged user, since Wireshark >= 4.4 skips Lua plugins for root.

Files tshark reads go through `stage()` into one world-readable folder (hard links when
possible), the only folder the chroots see; pytest's own temporary folders are private.
Not root: the host's tshark runs as the current user, the chroots are skipped.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROOT_TOOL = ROOT / "tools" / "wireshark-chroot.sh"
#: The chroots tools/test.sh builds, each with why it matters.
WANTED = {"trixie": "Debian 13's Wireshark 4.4 (Lua 5.4)", "testing": "Debian testing's Wireshark 4.6"}


@dataclass(frozen=True)
class Tshark:
    name: str          # "host", or the Debian suite of a chroot
    version: str       # "4.0.17"

    def __str__(self) -> str:
        return f"{self.name}-{self.version}"

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.version.split(".") if x.isdigit())

    def argv(self, program: str = "tshark") -> list[str]:
        if os.geteuid() != 0:
            return [shutil.which(program) or program]
        return [str(CHROOT_TOOL), "run", self.name, "--bind", str(staging()), "--", program]

    def run(self, args: list[str], timeout: float = 1200, program: str = "tshark") -> subprocess.CompletedProcess:
        return subprocess.run([*self.argv(program), *map(str, args)], capture_output=True, text=True,
                              timeout=timeout)


STAGING_ENV = "TCPDIAG_TSHARK_STAGING"


@functools.cache
def staging() -> Path:
    """The folder every tshark may read: made by the first process that asks (and removed
    when it exits), shared with the processes it starts."""
    if os.environ.get(STAGING_ENV):
        return Path(os.environ[STAGING_ENV])
    d = Path(tempfile.mkdtemp(prefix="tcpdiag-tshark-"))
    d.chmod(0o755)
    os.environ[STAGING_ENV] = str(d)
    atexit.register(shutil.rmtree, d, True)
    return d


def stage(path: Path) -> Path:
    """`path` where every tshark can read it (the same name for the same file, from any
    process)."""
    path = Path(path).resolve()
    if path.parent == staging():
        return path
    dest = staging() / f"{hashlib.sha1(str(path).encode()).hexdigest()[:12]}-{path.name}"
    if not dest.exists():
        tmp = staging() / f".{os.getpid()}-{dest.name}"
        try:
            if not path.stat().st_mode & 0o004:
                raise PermissionError("not readable by others")
            os.link(path, tmp)      # the file's own mode then holds: it is readable
        except OSError:
            shutil.copyfile(path, tmp)
            tmp.chmod(0o644)
        os.replace(tmp, dest)
    return dest


def scratch(name: str) -> Path:
    """A fresh path in the staging folder, for files tests write for tshark."""
    fd, p = tempfile.mkstemp(prefix="s-", suffix=f"-{name}", dir=staging())
    os.close(fd)
    os.chmod(p, 0o644)
    return Path(p)


@functools.cache
def discover() -> tuple[tuple[Tshark, ...], tuple[tuple[str, str], ...]]:
    """(the tsharks to test, (name, why missing) for each wanted one that is not there)."""
    if os.geteuid() != 0:
        exe = shutil.which("tshark")
        if exe is None:
            return (), (("host", "tshark not installed"),) + tuple(
                (n, "tshark not installed") for n in WANTED)
        first = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        found = (Tshark("host", first.split()[2].rstrip(".")),)
        return found, tuple((n, f"{why}: its chroot needs root") for n, why in WANTED.items())
    res = subprocess.run([str(CHROOT_TOOL), "list"], capture_output=True, text=True, timeout=300)
    found = []
    for line in res.stdout.splitlines():
        name, _, version = line.partition(" ")
        if version:
            found.append(Tshark(name, version))
    names = {t.name for t in found}
    missing = tuple((n, f"{why}: no chroot (tools/wireshark-chroot.sh build {n} failed or was not run)")
                    for n, why in WANTED.items() if n not in names)
    if "host" not in names:
        missing = (("host", "tshark not installed"),) + missing
    return tuple(found), missing
