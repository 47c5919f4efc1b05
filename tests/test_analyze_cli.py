"""`tcpdiag analyze` on the real-kernel samples: words, numbers, frames, every output form."""

from __future__ import annotations

import csv
import gzip
import json
import os
import pty
import subprocess
import sys

import pytest

from conftest import SAMPLES, run_tcpdiag, tcpdiag_exe

import tcpdiag

STORIES = ["small_rcvbuf", "wscale_off", "reordering", "small_sndbuf", "clean_bulk", "random_loss"]


def sample(name: str, side: str = "sender") -> str:
    return str(SAMPLES / f"{name}.{side}.pcap.gz")


@pytest.mark.parametrize("name", STORIES)
def test_analyze_text_names_the_verdict_and_its_frames(name):
    r = run_tcpdiag("analyze", sample(name))
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    v = tcpdiag.analyze(sample(name)).verdicts[0]
    assert v.primary.id.replace("_", " ").upper() in out
    assert v.primary.message in out
    assert f"frame.number == {v.primary.frames[0]}" in out or f"{{{v.primary.frames[0]} " in out
    assert "remedy:" in out and "ceiling:" in out and "tcp.stream == 0" in out
    assert "\x1b[" not in out  # not a TTY: no colour


def test_small_rcvbuf_states_the_window_arithmetic_and_the_buffer_a_target_needs():
    out = run_tcpdiag("analyze", sample("small_rcvbuf"), "--target-rate", "1G").stdout.decode()
    assert "rwnd 80,480 B ÷ 41.1 ms RTT = 15.6 Mbit/s ceiling" in out
    # 1 Gbit/s × 40.3 ms min RTT ≈ 5.03 MB of window
    assert "for 1 Gbit/s this path needs ≥ 5,03" in out


def test_wscale_off_is_capped_at_65535():
    out = run_tcpdiag("analyze", sample("wscale_off")).stdout.decode()
    assert "rwnd 65,535 B ÷" in out and "100 Mbit/s needs ≥" in out


def test_json_validates_against_the_schema_and_is_stable():
    jsonschema = pytest.importorskip("jsonschema")
    from tcpdiag.report import jsondoc

    first = run_tcpdiag("analyze", sample("reordering"), "--json", "--target-rate", "250M")
    second = run_tcpdiag("analyze", sample("reordering"), "--json", "--target-rate", "250M")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    doc = json.loads(first.stdout)
    jsonschema.validate(doc, jsondoc.schema())
    assert doc["schema_version"] == jsondoc.SCHEMA_VERSION and doc["target_rate_bps"] == 250e6
    f = doc["flows"][0]
    assert f["verdict"]["id"] == tcpdiag.analyze(sample("reordering")).verdicts[0].primary.id
    assert f["ceiling"]["needed_bytes"] > 0 and f["wireshark_filter"] == "tcp.stream == 0"


@pytest.mark.parametrize("path", sorted(str(p) for p in SAMPLES.glob("*.pcap.gz")))
def test_json_of_every_sample_validates(path):
    jsonschema = pytest.importorskip("jsonschema")
    from tcpdiag.report import jsondoc

    r = run_tcpdiag("analyze", path, "--json", "--all")
    assert r.returncode == 0, r.stderr
    jsonschema.validate(json.loads(r.stdout), jsondoc.schema())


def test_flow_by_stream_number_and_by_endpoints_in_either_order():
    a = tcpdiag.analyze(sample("clean_bulk_ipv6"))
    fl = a.scan.flows
    ep_a, ep_b = f"[{fl['a_addr'][0]}]:{fl['a_port'][0]}", f"[{fl['b_addr'][0]}]:{fl['b_port'][0]}"
    by_number = run_tcpdiag("analyze", sample("clean_bulk_ipv6"), "--flow", "0", "--json")
    for spec in (f"{ep_a}-{ep_b}", f"{ep_b}-{ep_a}"):
        r = run_tcpdiag("analyze", sample("clean_bulk_ipv6"), "--flow", spec, "--json")
        assert r.returncode == 0, r.stderr
        assert r.stdout == by_number.stdout
    assert [f["stream"] for f in json.loads(by_number.stdout)["flows"]] == [0]


@pytest.mark.parametrize("spec", ["9", "10.1.1.1:1-10.1.1.2:2", "nonsense"])
def test_flow_that_does_not_exist_is_a_usage_error(spec):
    r = run_tcpdiag("analyze", sample("wscale_off"), "--flow", spec)
    assert r.returncode == 2 and b"--flow" in r.stderr


def test_bad_target_rate_is_a_usage_error():
    r = run_tcpdiag("analyze", sample("wscale_off"), "--target-rate", "fast")
    assert r.returncode == 2 and b"--target-rate" in r.stderr


def test_csv_dir_writes_the_four_tables(tmp_path):
    r = run_tcpdiag("analyze", sample("reordering"), "-q", "--csv", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert r.stdout == b""
    heads = {}
    for name in ("packets", "flows", "events", "series"):
        with open(tmp_path / "out" / f"{name}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert rows, name
        heads[name] = rows
    assert {"frame", "rwnd", "in_flight", "limit", "retrans"} <= set(heads["packets"][0])
    assert {"stream", "verdict", "share_rwnd"} <= set(heads["flows"][0])
    kinds = {row["kind"] for row in heads["events"]}
    assert {"retransmission", "dsack", "spurious_retransmission"} <= kinds
    assert list(heads["series"][0])[:4] == ["stream", "frame", "time", "t"]
    retx = sum(1 for row in heads["packets"] if row["retrans"])
    assert sum(1 for row in heads["events"] if row["kind"] == "retransmission") == retx


def test_parquet_dir_writes_the_four_tables(tmp_path):
    import pandas as pd

    r = run_tcpdiag("analyze", sample("small_rcvbuf"), "-q", "--parquet", str(tmp_path))
    assert r.returncode == 0, r.stderr
    series = pd.read_parquet(tmp_path / "series.parquet")
    assert str(series["time"].dtype) == "datetime64[ns, UTC]" and len(series) > 1000
    for name in ("packets", "flows", "events"):
        assert len(pd.read_parquet(tmp_path / f"{name}.parquet"))


def test_reads_standard_input():
    raw = gzip.decompress((SAMPLES / "wscale_off.sender.pcap.gz").read_bytes())
    r = run_tcpdiag("analyze", "-", "--json", stdin=raw)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["capture"] == "-" and doc["flows"][0]["verdict"]["id"] == "wscale_missing"


def test_short_flows_are_hidden_unless_all():
    big = run_tcpdiag("analyze", sample("app_limited"), "--min-bytes", "1G").stdout.decode()
    assert "1 short flow hidden" in big and "#1" not in big
    shown = run_tcpdiag("analyze", sample("app_limited"), "--min-bytes", "1G", "--all").stdout.decode()
    assert "#1  flow 0" in shown


def test_damaged_capture_reports_the_readable_part_and_exits_5(tmp_path):
    raw = gzip.decompress((SAMPLES / "small_rcvbuf.sender.pcap.gz").read_bytes())
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(raw[: len(raw) * 2 // 3 + 7])
    r = run_tcpdiag("analyze", str(cut))
    assert r.returncode == 5
    assert b"flow 0" in r.stdout and b"warning" in r.stderr


@pytest.mark.parametrize("content, code", [(None, 3), (b"not a capture at all", 4)])
def test_unreadable_input_exit_codes(tmp_path, content, code):
    p = tmp_path / "x.pcap"
    if content is not None:
        p.write_bytes(content)
    r = run_tcpdiag("analyze", str(p))
    assert r.returncode == code and r.stderr.startswith(b"tcpdiag: error:")


def _on_tty(*args: str, env: dict | None = None) -> str:
    """Runs tcpdiag with stdout on a pseudo-terminal, as a user at a shell would."""
    main, child = pty.openpty()
    p = subprocess.Popen([*tcpdiag_exe(), *args], stdout=child, stderr=subprocess.PIPE,
                         env={**os.environ, "TERM": "xterm", **(env or {})})
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait(60)
    os.close(main)
    return b"".join(chunks).decode()


def test_colour_only_on_a_tty_and_never_with_no_color():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _on_tty("analyze", sample("small_rcvbuf"), env=env)
    assert "\x1b[" in coloured
    plain = _on_tty("analyze", sample("small_rcvbuf"), env={"NO_COLOR": "1"})
    label = tcpdiag.analyze(sample("small_rcvbuf")).verdicts[0].primary.id.replace("_", " ").upper()
    assert "\x1b[" not in plain and label in plain


def test_analyze_json_runs_without_pandas_or_plotly():
    code = ("import sys; sys.modules['pandas'] = None; sys.modules['plotly'] = None\n"
            "from tcpdiag.cli.main import main\n"
            f"main(['analyze', {sample('wscale_off')!r}, '--json'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["flows"][0]["verdict"]["id"]


def test_python_m_entry_point_has_analyze():
    r = subprocess.run([sys.executable, "-m", "tcpdiag.cli", "analyze", "--help"], capture_output=True)
    assert r.returncode == 0 and b"Example:" in r.stdout
