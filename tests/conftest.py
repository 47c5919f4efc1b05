"""Shared fixtures: where the corpus and samples are, and how to run the real tools."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from samples.generate import veth

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = Path(os.environ.get("TCPDIAG_CORPUS", ROOT.parent / "shared" / "corpus"))

#: The findings catalogue by id (catalogue/findings.toml, the one source).
FINDINGS = {f["id"]: f for f in tomllib.loads((ROOT / "catalogue" / "findings.toml").read_text())["finding"]}

CAPTURE_SUFFIXES = (".pcap", ".pcapng", ".cap", ".dmp", ".pcap.gz", ".pcapng.gz", ".dmp.gz", ".snoop.gz",
                    ".snp.gz", ".epeek.gz")


def is_capture(p: Path) -> bool:
    return p.is_file() and p.name.endswith(CAPTURE_SUFFIXES)


def corpus_captures() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if is_capture(p))


def corpus_id(p: Path) -> str:
    return str(p.relative_to(CORPUS))


def tcpdiag_exe() -> list[str]:
    """The installed console script beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "tcpdiag"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tcpdiag.cli"]


def run_tcpdiag(*args: str, stdin: bytes | None = None, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([*tcpdiag_exe(), *args], input=stdin, capture_output=True, check=check, timeout=600)


@pytest.fixture(scope="session")
def tshark() -> str:
    exe = shutil.which("tshark")
    if exe is None:
        pytest.skip("tshark not installed")
    return exe


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not present at {CORPUS}")
    return CORPUS


@contextlib.contextmanager
def veth_pair(prefix: str, addrs: tuple[str, str]):
    """Two network namespaces made here, `{prefix}-s…` and `{prefix}-r…` (this process's
    own: tests running side by side do not meet), joined by a veth pair with `addrs` (/24)
    and every link up; yields (namespaces, devices) and deletes the namespaces after
    (samples.generate.veth.veth_pair). Needs root and iproute2."""
    tag = f"{os.getpid() % 100000}"
    ns = (f"{prefix}-s{tag}", f"{prefix}-r{tag}")
    dev = (f"{prefix[-4:]}s{tag}", f"{prefix[-4:]}r{tag}")
    with veth.veth_pair(ns, dev, addrs) as pair:
        yield pair
