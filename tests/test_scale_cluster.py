"""`--cluster`: per-capture analyses on a real Dask scheduler and workers (separate
processes on 127.0.0.1, started here) give the local results."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import SAMPLES, tcpdiag_exe

distributed = pytest.importorskip("distributed")

from tcpdiag.fleet import analyze_fleet  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def scheduler():
    port = free_port()
    dask = str(Path(sys.executable).parent / "dask")
    addr = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    procs.append(subprocess.Popen([dask, "worker", addr, "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                                   "--host", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with distributed.Client(addr, timeout="5s") as c:
                    c.wait_for_workers(2, timeout=max(1, deadline - time.monotonic()))
                    break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail("dask scheduler/workers did not start")
                time.sleep(0.5)
        yield addr
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_cluster_results_equal_local(scheduler: str) -> None:
    files = [str(p) for p in sorted(SAMPLES.glob("*.pcap.gz"))]
    remote = analyze_fleet(files, cluster=scheduler, jobs=2)
    local = analyze_fleet(files)
    pd.testing.assert_frame_equal(remote.flows, local.flows)
    assert len(remote.flows) == len(files)
    assert remote.errors == local.errors == {}


def test_cluster_cli_glob_and_bad_file(scheduler: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(b"not a capture at all")
    out = tmp_path / "fleet"
    r = subprocess.run([*tcpdiag_exe(), "analyze", "--cluster", scheduler, str(SAMPLES / "*.sender.pcap.gz"), str(bad),
                        "--csv", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 4, r.stderr
    assert "bad.pcap" in r.stderr
    df = pd.read_csv(out / "flows.csv")
    assert len(df) == len(list(SAMPLES.glob("*.sender.pcap.gz")))
