"""The flows and packets commands on small built captures, through the installed CLI."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import run_tcpdiag
from pcapbuild import Seg, handshake_and_data, pcap_of


@pytest.fixture
def capture(tmp_path):
    p = tmp_path / "hs.pcap"
    p.write_bytes(pcap_of(handshake_and_data(n_data=3)))
    return p


def test_flows_json_reports_handshake_options(capture):
    r = run_tcpdiag("flows", "--format", "json", str(capture))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == 1
    (f,) = doc["flows"]
    assert (f["a_addr"], f["a_port"], f["b_addr"], f["b_port"]) == ("10.0.0.1", 40000, "10.0.0.2", 80)
    assert (f["packets_ab"], f["packets_ba"]) == (5, 2)
    assert f["payload_ab"] == 3 * 1448
    assert f["handshake"] and f["wscale_in_effect"] is True
    assert (f["mss_a"], f["wscale_a"], f["syn_frame_a"], f["syn_frame_b"]) == (1460, 7, 1, 2)


def test_flows_table_and_csv(capture):
    r = run_tcpdiag("flows", str(capture))
    assert r.returncode == 0
    assert "10.0.0.1:40000" in r.stdout.decode() and "1 flows" in r.stdout.decode()
    r = run_tcpdiag("flows", "--format", "csv", str(capture))
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    assert rows[0]["stream"] == "0" and rows[0]["wscale_in_effect"] == "True"


def test_packets_csv_rows(capture):
    r = run_tcpdiag("packets", str(capture))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    assert [int(x["frame"]) for x in rows] == list(range(1, 8))
    syn = rows[0]
    assert (syn["seq_raw"], syn["flags"], syn["tcp_len"], syn["dir"]) == ("999", "2", "0", "0")
    assert rows[1]["dir"] == "1" and rows[3]["tcp_len"] == "1448"
    assert rows[0]["ts"] == "1700000000.000000000"


def test_packets_parquet_matches_csv(capture, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "p.parquet"
    r = run_tcpdiag("packets", "--format", "parquet", "-o", str(out), str(capture))
    assert r.returncode == 0, r.stderr
    t = pq.read_table(out)
    assert t.num_rows == 7
    assert t.column("seq_raw").to_pylist()[0] == 999
    assert str(t.column("src").to_pylist()[0]) == "10.0.0.1"


def test_port_reuse_gives_two_streams(tmp_path):
    segs = handshake_and_data(n_data=1)
    later = [s.but(ts=s.ts + 10, seq=s.seq + 777_777 if s.sport == 40000 else s.seq,
                   ack=s.ack + 777_777 if s.sport == 80 and s.ack else s.ack) for s in segs]
    p = tmp_path / "reuse.pcap"
    p.write_bytes(pcap_of(segs + later))
    doc = json.loads(run_tcpdiag("flows", "--format", "json", str(p)).stdout)
    assert [f["stream"] for f in doc["flows"]] == [0, 1]
    assert doc["flows"][1]["first_frame"] == len(segs) + 1


def test_ns_big_endian_pcap_same_as_us_little(tmp_path):
    segs = handshake_and_data()
    a, b = tmp_path / "a.pcap", tmp_path / "b.pcap"
    a.write_bytes(pcap_of(segs))
    b.write_bytes(pcap_of(segs, nanos=True, big_endian=True))
    ra, rb = run_tcpdiag("packets", str(a)), run_tcpdiag("packets", str(b))
    assert ra.returncode == rb.returncode == 0
    assert ra.stdout == rb.stdout


def test_headers_only_capture_uses_ip_length(tmp_path):
    segs = handshake_and_data(n_data=2)
    p = tmp_path / "snap.pcap"
    p.write_bytes(pcap_of(segs, snaplen=68))
    rows = list(csv.DictReader(io.StringIO(run_tcpdiag("packets", str(p)).stdout.decode())))
    assert rows[3]["tcp_len"] == "1448"


def test_version_and_help_examples():
    r = run_tcpdiag("--version")
    assert r.returncode == 0 and b"tcpdiag" in r.stdout
    for cmd in ("flows", "packets"):
        assert b"Example:" in run_tcpdiag(cmd, "--help").stdout


def test_cli_imports_without_pandas():
    import subprocess
    import sys

    code = ("import sys; import tcpdiag.cli.main; "
            "bad = [m for m in ('pandas', 'plotly', 'pyarrow') if m in sys.modules]; "
            "print(','.join(bad)); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, f"CLI imports {r.stdout.strip()}"


@pytest.mark.parametrize("args", [
    ["analyze", "--json"], ["analyze"], ["flows", "--format", "csv"], ["packets", "--analysis"],
    ["wireshark", "annotate", "-o", "{tmp}/a.lua"],
])
def test_commands_run_without_loading_pandas(args, tmp_path):
    # pyarrow imports pandas behind the caller's back (Schema.empty_table, to_numpy,
    # pa.array): ~0.2 s of start-up per command. Blocking pandas (as the test above does)
    # hides that, so here the command runs normally and the modules are looked at after.
    from conftest import ROOT

    cap = str(ROOT / "samples" / "clean_bulk.sender.pcap.gz")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args] + [cap]
    code = ("import sys\nfrom tcpdiag.cli.main import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('LOADED ' + ','.join(m for m in ('pandas', 'pyarrow.compute') if m in sys.modules))")
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = r.stderr.rsplit("LOADED ", 1)[-1].strip()
    assert loaded == "", f"{' '.join(args)} loaded {loaded}"


def test_each_lazily_loaded_command_answers_to_the_name_it_is_listed_under():
    # cli/main.py names each command's module by hand; the command itself carries its name.
    from tcpdiag.cli.main import COMMANDS, main

    for name in COMMANDS:
        assert main.get_command(None, name).name == name


def test_a_command_loads_no_other_commands_module():
    # `tcpdiag analyze` need not import the Wireshark installer, the comparison, the ETL
    # converter or the tables (cli/main.py loads each command's module when it runs; its
    # fleet mode shares cli/fleet.py with `live`).
    from conftest import ROOT

    cap = str(ROOT / "samples" / "clean_bulk.sender.pcap.gz")
    code = ("import sys\nfrom tcpdiag.cli.main import main\n"
            f"try:\n    main({['analyze', cap]!r})\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('LOADED ' + ','.join(sorted(m for m in sys.modules if m.startswith('tcpdiag.cli.'))))")
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = set(r.stderr.rsplit("LOADED ", 1)[-1].strip().split(","))
    assert "tcpdiag.cli.analyze" in loaded
    assert not loaded & {"tcpdiag.cli.wireshark", "tcpdiag.cli.compare", "tcpdiag.cli.convert",
                         "tcpdiag.cli.tables"}, loaded


def test_exit_codes_page_lists_exactly_the_codes_of_the_table():
    import re

    from conftest import ROOT

    from tcpdiag.errors import EXIT

    page = (ROOT / "docs" / "exit-codes.md").read_text()
    documented = {int(m) for m in re.findall(r"^\| (\d+) \|", page, re.M)}
    assert documented == set(EXIT.values())
