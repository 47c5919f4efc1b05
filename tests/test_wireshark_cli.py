"""`tcpdiag wireshark`: the plugin ships in the package, installs, and opens captures."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import tsharks
from conftest import ROOT, SAMPLES, run_tcpdiag, tcpdiag_exe

TSHARKS = [pytest.param(t, id=str(t)) for t in tsharks.discover()[0]] + [
    pytest.param(None, id=name, marks=pytest.mark.skip(reason=why)) for name, why in tsharks.discover()[1]]

SOURCE = ROOT / "wireshark-plugin" / "tcpdiag.lua"


def test_path_points_at_the_plugin_shipped_in_the_package():
    res = run_tcpdiag("wireshark", "path", check=True)
    path = Path(res.stdout.decode().strip())
    assert path.name == "tcpdiag.lua" and path.is_file()
    assert path.read_bytes() == SOURCE.read_bytes(), "installed plugin is stale: reinstall the package"


def test_install_copies_into_the_given_folder(tmp_path):
    shipped = Path(run_tcpdiag("wireshark", "path", check=True).stdout.decode().strip())
    res = run_tcpdiag("wireshark", "install", "--dir", str(tmp_path / "plugins"), check=True)
    assert (tmp_path / "plugins" / "tcpdiag.lua").read_bytes() == shipped.read_bytes()
    assert b"installed" in res.stdout


def test_install_into_an_unwritable_place_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = run_tcpdiag("wireshark", "install", "--dir", str(blocker / "plugins"))
    assert res.returncode == 6
    assert res.stderr.decode().startswith("tcpdiag: error: ") and len(res.stderr.splitlines()) == 1


def test_open_without_wireshark_says_so(monkeypatch):
    env = dict(os.environ, PATH="/nonexistent")
    res = subprocess.run([*tcpdiag_exe(), "wireshark", str(SAMPLES / "reordering.sender.pcap.gz")],
                         capture_output=True, env=env, timeout=60)
    assert res.returncode == 7
    err = res.stderr.decode()
    assert "Wireshark is not installed" in err and "lua_script:" in err


def test_open_checks_the_capture(tmp_path):
    res = run_tcpdiag("wireshark", "open", "--wireshark", "true", str(tmp_path / "missing.pcap"))
    assert res.returncode == 3 and b"no such file" in res.stderr


def test_annotate_writes_beside_the_capture_by_default(tmp_path):
    capture = tmp_path / "c.pcap.gz"
    capture.write_bytes((SAMPLES / "small_rcvbuf.sender.pcap.gz").read_bytes())
    res = run_tcpdiag("wireshark", "annotate", str(capture))
    assert res.returncode == 0, res.stderr
    out = tmp_path / "c.pcap.gz.tcpdiag.lua"
    assert out.is_file() and f"tcpdiag.annotations:{out}" in res.stderr.decode()


def test_annotate_bad_input_and_unwritable_output_are_one_line(tmp_path):
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"not a capture at all")
    res = run_tcpdiag("wireshark", "annotate", str(junk), "-o", str(tmp_path / "x.lua"))
    assert res.returncode == 4 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    res = run_tcpdiag("wireshark", "annotate", str(SAMPLES / "small_rcvbuf.sender.pcap.gz"),
                      "-o", str(tmp_path / "no" / "such" / "dir" / "x.lua"))
    assert res.returncode == 6 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert b"Traceback" not in res.stderr


def test_annotate_a_damaged_capture_up_to_the_damage(tmp_path):
    """A capture cut mid-record: the frames before the cut are annotated, one warning
    line says where it stopped, exit 5 as `tcpdiag packets`."""
    import gzip

    whole = gzip.decompress((SAMPLES / "small_rcvbuf.sender.pcap.gz").read_bytes())
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(whole[: len(whole) // 2])
    out = tmp_path / "cut.lua"
    res = run_tcpdiag("wireshark", "annotate", str(cut), "-o", str(out))
    err = res.stderr.decode().strip().splitlines()
    assert res.returncode == 5 and out.is_file(), res.stderr
    assert [line for line in err if line.startswith("tcpdiag: warning:")] and "frames before it" in err[-1], err
    assert out.read_text(errors="replace").rstrip().endswith(tuple("0123456789")), "the header was written"


def test_help_has_examples():
    for cmd in (["wireshark"], ["wireshark", "path"], ["wireshark", "install"], ["wireshark", "open"],
                ["wireshark", "annotate"]):
        out = run_tcpdiag(*cmd, "--help", check=True).stdout.decode()
        assert "Example:" in out


def test_open_annotates_once_and_wireshark_shows_the_verdicts(tmp_path, tshark):
    """`tcpdiag wireshark FILE` hands Wireshark the plugin and the capture's annotations
    (cached); a stand-in `wireshark` runs tshark with exactly those arguments."""
    import tcpdiag

    out = tmp_path / "shown.tsv"
    fake = tmp_path / "bin" / "wireshark"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/args\n'
                    f'exec {tshark} "$@" -T fields -e tcpdiag.flow.verdict > {out}\n')
    fake.chmod(0o755)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    capture = SAMPLES / "small_rcvbuf.sender.pcap.gz"
    want = {v.primary.id for v in tcpdiag.analyze(str(capture)).verdicts.values()}
    for _ in range(2):
        res = subprocess.run([*tcpdiag_exe(), "wireshark", "open", "--wireshark", str(fake), str(capture)],
                             capture_output=True, env=env, timeout=300)
        assert res.returncode == 0, res.stderr
        assert set(out.read_text().split()) == want
    cached = list((tmp_path / "cache" / "tcpdiag" / "annotations").iterdir())
    assert len(cached) == 1 and cached[0].suffix == ".lua"
    args = (tmp_path / "args").read_text().splitlines()
    assert args[0] == args[1] and f"tcpdiag.annotations:{cached[0]}" in args[0]


@pytest.mark.parametrize("ts", TSHARKS)
def test_install_as_root_warns_when_wireshark_skips_plugins_for_root(ts, tmp_path):
    """Wireshark >= 4.4 ships no init.lua, so as root it loads no personal Lua plugin:
    `install` run as root says so in one line, with what to do; 4.0 (whose init.lua lets
    root run them) gets no warning. The stand-in `tshark` runs that version as root."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    fake = tmp_path / "bin" / "tshark"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nexec {tsharks.CHROOT_TOOL} run {ts.name} --bind /tmp --root -- tshark "$@"\n')
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{fake.parent}:{os.environ['PATH']}")
    res = subprocess.run([*tcpdiag_exe(), "wireshark", "install", "--dir", str(tmp_path / "plugins")],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0 and (tmp_path / "plugins" / "tcpdiag.lua").is_file(), res.stderr
    warnings = [line for line in res.stderr.splitlines() if line.startswith("tcpdiag: warning:")]
    if ts.version_tuple >= (4, 4):
        assert len(warnings) == 1 and f"Wireshark {ts.version}" in warnings[0], res.stderr
        assert "run_user_scripts_when_superuser = true" in warnings[0] and "init.lua" in warnings[0]
    else:
        assert not warnings, res.stderr


@pytest.mark.parametrize("ts", TSHARKS)
def test_root_gets_the_plugin_only_where_the_warning_says(ts, tmp_path):
    """What the warning rests on: as root, 4.4 and later load no user Lua script."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    plugin = tsharks.stage(SOURCE)
    res = subprocess.run([str(tsharks.CHROOT_TOOL), "run", ts.name, "--bind", str(tsharks.staging()), "--root", "--",
                          "tshark", "-X", f"lua_script:{plugin}", "-r", str(tsharks.stage(SAMPLES / "reordering.sender.pcap.gz")),
                          "-c", "1", "-T", "fields", "-e", "tcpdiag.annotations_missing"],
                         capture_output=True, text=True, timeout=300)
    loaded = res.returncode == 0 and "no annotations" in res.stderr
    assert loaded == (ts.version_tuple < (4, 4)), res.stderr
