"""Regenerate the ground-truth samples: `python3 -m samples.generate [--all | NAME ...]`.

Needs root (namespaces, TUN, SCHED_FIFO). Without them it says why and exits 0 ("skipped"),
so it can sit in a test run on machines that cannot make captures.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import netns, truth
from samples.generate.capture import Capture
from samples.generate.scenarios import BY_NAME, SCENARIOS, Scenario

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(REPO, "samples")
PORT = 5201
READY_TIMEOUT_S = 10
# A run whose emulator ran late or whose captures are incomplete is redone, not committed;
# so is one where the kernel's counters do not show the story (say, a reordering run in which
# Linux adapted its reordering window early). The attempt number is recorded in the truth.
ATTEMPTS = 3
MAX_LATE_SHARE = 0.005  # of packets delivered more than 1 ms after schedule
MAX_LATE_US = 10_000


def unavailable_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces, TUN devices, SCHED_FIFO)"
    if not os.path.exists("/dev/net/tun"):
        return "/dev/net/tun is missing"
    for tool in ("ip", "tcpdump"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = "tdsamp-probe"
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None if ok else "cannot create network namespaces"


def _python(module: str, *args: str, ns: str | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", f"samples.generate.{module}", *args]
    if ns:
        cmd = ["ip", "netns", "exec", ns, *cmd]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _wait_ready(proc: subprocess.Popen, what: str) -> None:
    line = proc.stdout.readline()
    if line.strip() != "ready":
        raise RuntimeError(f"{what} failed to start: {line!r} {proc.stderr.read()[-2000:]}")


def _endpoint_args(opts: dict) -> list[str]:
    return [a for k, v in opts.items() for a in (f"--{k.replace('_', '-')}", str(v))]


def run_scenario(sc: Scenario, work: str) -> dict:
    """Run one scenario; returns the raw material truth.build() turns into the sample."""
    paths = {k: os.path.join(work, f) for k, f in {
        "emu_cfg": "emulator.json", "emu_log": "emulator.csv.gz", "emu_summary": "emu.json",
        "snd_pcap": "sender.pcap", "rcv_pcap": "receiver.pcap",
        "snd_out": "sender.json", "rcv_out": "receiver.json"}.items()}
    with open(paths["emu_cfg"], "w") as f:
        json.dump({"tun_a": netns.SENDER_DEV, "tun_b": netns.RECEIVER_DEV, "seed": sc.seed,
                   "a2b": sc.data, "b2a": sc.acks, "log": paths["emu_log"],
                   "summary": paths["emu_summary"]}, f)
    procs, captures = [], []
    netns.delete_all()
    try:
        emu = _python("emulator", paths["emu_cfg"])
        procs.append(emu)
        _wait_ready(emu, "emulator")
        netns.create(netns.SENDER_NS, netns.SENDER_DEV, sc.sender_sysctls, sc.sender_gso_max_size)
        netns.create(netns.RECEIVER_NS, netns.RECEIVER_DEV, sc.receiver_sysctls, None)
        for ns, dev, key in ((netns.SENDER_NS, netns.SENDER_DEV, "snd_pcap"),
                             (netns.RECEIVER_NS, netns.RECEIVER_DEV, "rcv_pcap")):
            captures.append(Capture(ns, dev, paths[key]))
        addrs = netns.ADDR6 if sc.ipv6 else netns.ADDR4
        rcv_addr = addrs[netns.RECEIVER_NS]
        receiver = _python("endpoint", "receiver", "--addr", rcv_addr, "--port", str(PORT),
                           "--out", paths["rcv_out"], *_endpoint_args(sc.receiver),
                           ns=netns.RECEIVER_NS)
        procs.append(receiver)
        _wait_ready(receiver, "receiver")
        started = time.time_ns()
        sender = _python("endpoint", "sender", "--addr", rcv_addr, "--port", str(PORT),
                         "--out", paths["snd_out"], "--cc", sc.cc,
                         "--duration", str(sc.duration_s), *_endpoint_args(sc.sender),
                         ns=netns.SENDER_NS)
        procs.append(sender)
        limit = sc.duration_s + 60
        for proc, what in ((sender, "sender"), (receiver, "receiver")):
            _, err = proc.communicate(timeout=limit)
            if proc.returncode != 0:
                raise RuntimeError(f"{what} exited {proc.returncode}: {err[-2000:]}")
        time.sleep(0.3)  # let the last ACKs and FINs through the emulator into the captures
        tcpdump = {"sender": captures[0].stop(), "receiver": captures[1].stop()}
        links = {"sender": netns.link_stats(netns.SENDER_NS, netns.SENDER_DEV),
                 "receiver": netns.link_stats(netns.RECEIVER_NS, netns.RECEIVER_DEV)}
        sysctls = {"sender": netns.read_sysctls(netns.SENDER_NS),
                   "receiver": netns.read_sysctls(netns.RECEIVER_NS)}
        emu.terminate()
        _, err = emu.communicate(timeout=30)
        if emu.returncode != 0:
            raise RuntimeError(f"emulator exited {emu.returncode}: {err[-2000:]}")
        with open(paths["emu_summary"]) as f:
            emu_summary = json.load(f)
        with open(paths["snd_out"]) as f:
            snd = json.load(f)
        with open(paths["rcv_out"]) as f:
            rcv = json.load(f)
        return {"paths": paths, "started_ns": started, "tcpdump": tcpdump, "links": links,
                "sysctls": sysctls, "emulator": emu_summary, "sender": snd, "receiver": rcv}
    finally:
        for cap in captures:
            cap.kill()
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        netns.delete_all()


def honesty_problems(doc: dict) -> list[str]:
    """Reasons a run's timing or captures cannot be trusted as ground truth."""
    problems = []
    emu = doc["emulator"]
    if not emu["realtime_sched"]:
        problems.append("emulator could not get SCHED_FIFO")
    for what in ("delivery_lateness", "ingress_lateness"):
        lat = emu[what]
        too_many = lat["over_1ms"] > MAX_LATE_SHARE * lat["n"]
        if lat["n"] and (too_many or lat["max_us"] > MAX_LATE_US):
            problems.append(f"{what}: {lat['over_1ms']} packets > 1 ms, max {lat['max_us']} us")
    for side, cap in doc["captures"].items():
        td = cap["tcpdump"]
        if td["dropped_by_kernel"] or td["captured"] != td["received_by_filter"]:
            problems.append(f"{side} tcpdump incomplete: {td}")
        if cap["tun_link"]["tx"].get("dropped"):
            problems.append(f"{side} TUN dropped {cap['tun_link']['tx']['dropped']} packets "
                            "before the emulator read them")
    return problems


def shows_story(sc: Scenario, doc: dict) -> bool:
    exp = doc["expected"]
    return exp["verdict"] == sc.intended and set(sc.intended_also) <= set(exp["also"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("names", nargs="*", help="scenarios to regenerate (default: none)")
    p.add_argument("--all", action="store_true", help="regenerate every scenario")
    p.add_argument("--out", default=SAMPLES, help="where samples go (default: samples/)")
    p.add_argument("--list", action="store_true", help="list scenarios and exit")
    a = p.parse_args(argv)
    if a.list:
        for sc in SCENARIOS:
            print(f"{sc.name:20} {sc.intended:31} {sc.story}")
        return 0
    names = [s.name for s in SCENARIOS] if a.all else a.names
    unknown = [n for n in names if n not in BY_NAME]
    if unknown or not names:
        p.error(f"unknown scenarios {unknown}" if unknown else "name scenarios or use --all")
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    failed = []
    command = " ".join(["python3 -m samples.generate", *(argv or sys.argv[1:])])
    for name in names:
        sc = BY_NAME[name]
        for attempt in range(1, ATTEMPTS + 1):
            with tempfile.TemporaryDirectory(prefix=f"tdsamp-{name}-") as work:
                doc = truth.write_sample(sc, run_scenario(sc, work), a.out, command, attempt)
            problems = honesty_problems(doc)
            if not problems and shows_story(sc, doc):
                break
            why = "; ".join(problems) or f"kernel says {doc['expected']['verdict']}"
            print(f"{name:18} attempt {attempt} rejected: {why}", flush=True)
        ok = shows_story(sc, doc) and not problems
        print(f"{name:18} {'ok      ' if ok else 'MISMATCH'} verdict={doc['expected']['verdict']} "
              f"also={doc['expected']['also']} {truth.one_line(doc)}", flush=True)
        if not ok:
            failed.append(name)
    if failed:
        print(f"scenarios not showing their story: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
