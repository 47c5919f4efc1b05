"""Scale on one machine: N workers give the single-core results, rotated pieces merge to
the whole capture (and to what mergecap + Wireshark numbering give), filters keep frame
numbers, the fleet table has a capture column and exports."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import tcpdiag
from tcpdiag.fleet import analyze_fleet
from conftest import SAMPLES, corpus_captures, tcpdiag_exe

SAMPLE_FILES = sorted(SAMPLES.glob("*.pcap.gz"))


def same(a: tcpdiag.Analysis, b: tcpdiag.Analysis) -> None:
    """The same flows, statistics and verdicts: the engine's two tables, cell for cell."""
    volatile = {"input_bytes"}  # compressed vs. plain inputs
    assert {k: v for k, v in a.scan.stats.items() if k not in volatile} == \
        {k: v for k, v in b.scan.stats.items() if k not in volatile}
    # By value: categories may be encoded with different dictionaries.
    assert a.flow_table.to_pylist() == b.flow_table.to_pylist()
    assert a.finding_table.to_pylist() == b.finding_table.to_pylist()


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("jobs", [2, 3])
def test_sample_jobs_n_equals_single_core(path: Path, jobs: int) -> None:
    same(tcpdiag.analyze(str(path), jobs=jobs), tcpdiag.analyze(str(path)))


def test_corpus_jobs_two_equals_single_core() -> None:
    files = corpus_captures()
    if not files:
        pytest.skip("no corpus")
    checked = 0
    for p in files:
        try:
            one = tcpdiag.analyze(str(p), errors="warn")
        except tcpdiag.CaptureError:
            continue
        two = tcpdiag.analyze(str(p), errors="warn", jobs=2, idle_timeout=None)
        same(one, two)
        checked += 1
    assert checked > 10


def split(src: Path, tmp: Path, frames_per_piece: int) -> list[str]:
    """Rotated pieces as tcpdump -C would leave them (editcap -c)."""
    out = tmp / "piece.pcap"
    subprocess.run(["editcap", "-F", "nsecpcap", "-c", str(frames_per_piece), str(src), str(out)], check=True)
    return sorted(str(p) for p in tmp.glob("piece_*.pcap"))


needs_editcap = pytest.mark.skipif(not shutil.which("editcap") or not shutil.which("mergecap"),
                                   reason="editcap/mergecap (Wireshark) not installed")


@needs_editcap
def test_rotated_pieces_merged_equal_whole_capture(tmp_path: Path) -> None:
    src = SAMPLES / "reordering.sender.pcap.gz"
    pieces = split(src, tmp_path, 500)
    assert len(pieces) > 3
    merged = tcpdiag.analyze(list(reversed(pieces)))
    whole = tcpdiag.analyze(str(src))
    same(merged, whole)


@needs_editcap
def test_merge_numbers_frames_as_mergecap(tmp_path: Path) -> None:
    # The sender's and the receiver's capture of one transfer interleave in time.
    a, b = str(SAMPLES / "random_loss.sender.pcap.gz"), str(SAMPLES / "random_loss.receiver.pcap.gz")
    out = tmp_path / "merged.pcap"
    subprocess.run(["mergecap", "-F", "nsecpcap", "-w", str(out), a, b], check=True)
    ours = tcpdiag.analyze([a, b])
    theirs = tcpdiag.analyze(str(out))
    same(ours, theirs)


def test_filter_keeps_unfiltered_frame_numbers() -> None:
    path = str(SAMPLES / "clean_bulk.sender.pcap.gz")
    whole = tcpdiag.packets(path)
    acks = tcpdiag.analyze(path, filter="tcp and src port 5201")
    row = acks.flows.iloc[0]
    from_server = whole[whole["sport"] == 5201]
    assert row["first_frame"] == from_server["frame"].min()
    assert row["last_frame"] == from_server["frame"].max()
    assert row["packets_ab"] == len(from_server) and row["packets_ba"] == 0
    assert acks.engine["filtered_out"] == len(whole) - len(from_server)


def test_bad_filter_is_a_usage_error() -> None:
    r = subprocess.run([*tcpdiag_exe(), "analyze", "--filter", "host and and", str(SAMPLE_FILES[0])],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "filter" in r.stderr and "Traceback" not in r.stderr


def test_fleet_table_has_capture_column_worst_first(tmp_path: Path) -> None:
    pattern = str(SAMPLES / "*.receiver.pcap.gz")
    fleet = analyze_fleet([pattern], jobs=2)
    df = fleet.flows
    assert df.columns[0] == "capture"
    assert df["capture"].nunique() == len(list(SAMPLES.glob("*.receiver.pcap.gz")))
    assert list(df["limited_s"]) == sorted(df["limited_s"], reverse=True)
    assert {"verdict", "goodput_bps", "stream", "first_frame"} <= set(df.columns)
    hosts = fleet.hosts
    assert hosts["flows"].sum() == len(df)


def test_cli_many_files_csv_and_parquet(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    files = [str(p) for p in SAMPLE_FILES[:3]]
    r = subprocess.run([*tcpdiag_exe(), "analyze", "-j", "2", *files, "--csv", str(out), "--parquet", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "worst first" in r.stdout
    a, b = pd.read_csv(out / "flows.csv"), pd.read_parquet(out / "flows.parquet")
    assert len(a) == len(b) == 3
    assert set(a["capture"]) == set(files)


def test_cli_missing_file_reported_others_analysed(tmp_path: Path) -> None:
    r = subprocess.run([*tcpdiag_exe(), "analyze", str(SAMPLE_FILES[0]), str(tmp_path / "nope.pcap")],
                       capture_output=True, text=True)
    assert r.returncode == 3
    assert "nope.pcap" in r.stderr and "1 flows in 1 capture" in r.stdout


def test_idle_timeout_evicts_without_changing_results() -> None:
    path = str(SAMPLES / "app_limited.sender.pcap.gz")
    # A flow idle longer than the timeout inside the capture would start a new episode;
    # with a timeout longer than any gap the results equal those without eviction.
    a = tcpdiag.analyze(path, jobs=2, idle_timeout=60.0)
    same(a, tcpdiag.analyze(path))
    assert a.engine["peak_active"] >= 1
