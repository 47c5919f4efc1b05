"""Regenerate the ground-truth samples: `python3 -m samples.generate [--all | NAME ...]`.

Needs root (namespaces, TUN, SCHED_FIFO). Without them it says why and exits 0 ("skipped"),
so it can sit in a test run on machines that cannot make captures.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from samples.generate import capture, netns, runner, truth
from samples.generate.scenarios import BY_NAME, SCENARIOS, Scenario

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(REPO, "samples")
# A run whose emulator ran late or whose captures are incomplete is redone, not committed;
# so is one where the kernel's counters do not show the story (say, a reordering run in which
# Linux adapted its reordering window early). The attempt number is recorded in the truth.
ATTEMPTS = 3
MAX_LATE_SHARE = 0.005  # of packets delivered more than 1 ms after schedule
MAX_LATE_US = 10_000


def unavailable_reason(names: netns.Names = netns.DEFAULT) -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces, TUN devices, SCHED_FIFO)"
    if not os.path.exists("/dev/net/tun"):
        return "/dev/net/tun is missing"
    for tool in ("ip", "tcpdump"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = f"{names.prefix}-probe"
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None if ok else "cannot create network namespaces"


def scenario_spec(sc: Scenario) -> dict:
    """The run spec (runner.py) of a named scenario."""
    return {"seed": sc.seed, "family": "ipv6" if sc.ipv6 else "ipv4", "mtu": 1500,
            "cc": sc.cc, "duration_s": sc.duration_s, "listen": "receiver",
            "a2b": sc.data, "b2a": sc.acks, "middlebox": sc.middlebox,
            "middle_capture": sc.middle_capture,
            "sender": {"sysctls": sc.sender_sysctls, "gso_max_size": sc.sender_gso_max_size,
                       "app": sc.sender},
            "receiver": {"sysctls": sc.receiver_sysctls, "app": sc.receiver}}


def run_scenario(sc: Scenario, work: str) -> dict:
    """Run one scenario; returns the raw material truth.build() turns into the sample."""
    return runner.execute(scenario_spec(sc), work)


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
        td = cap.get("tcpdump")
        if td is None:  # written by the emulator, not tcpdump
            continue
        if not capture.whole(td):
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
