"""Run one fully specified transfer and collect its raw material.

A run is described by a plain JSON-able dict, the *run spec*, so a named scenario
(scenarios.py), a sweep draw (space.py) and a later two-capture comparison all describe runs
the same way:

  seed            seeds the emulator's random choices
  family          "ipv4" | "ipv6"
  mtu             of both TUN devices
  cc              the data sender's congestion control (TCP_CONGESTION)
  duration_s      how long the application transfers
  listen          "receiver" (the data sender connects: the default) or "sender" (the data
                  receiver connects, e.g. a client asking a server for responses)
  a2b, b2a        the emulator's two directions (emulator.py): a2b carries the data
  middlebox       None, or the rewrites of middlebox.py
  middle_capture  also write the capture at the path's midpoint (emulator.py)
  sender, receiver  {"sysctls": {name: value}, "gso_max_size": N or None,
                     "app": endpoint.py options of that side}

Processes run at real-time priority, the emulator highest, then the two tcpdumps, then the
applications, so other work on the machine cannot make the emulator late, a capture drop
packets, or the sender look application-limited.
"""

import json
import os
import subprocess
import sys
import time

from samples.generate import netns
from samples.generate.capture import Capture

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PORT = 5201
EMULATOR_PRIORITY, CAPTURE_PRIORITY, APP_PRIORITY = 60, 50, 40
FILES = {"emu_cfg": "emulator.json", "emu_log": "emulator.csv.gz", "emu_summary": "emu.json",
         "snd_pcap": "sender.pcap", "rcv_pcap": "receiver.pcap", "mid_pcap": "middle.pcap",
         "box_log": "middlebox.csv.gz", "snd_out": "sender.json", "rcv_out": "receiver.json"}


def _python(module: str, *args: str, ns: str | None = None, priority: int = 0) -> subprocess.Popen:
    cmd = [sys.executable, "-m", f"samples.generate.{module}", *args]
    if priority:
        cmd = ["chrt", "-f", str(priority), *cmd]
    if ns:
        cmd = ["ip", "netns", "exec", ns, *cmd]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _wait_ready(proc: subprocess.Popen, what: str) -> None:
    line = proc.stdout.readline()
    if line.strip() != "ready":
        raise RuntimeError(f"{what} failed to start: {line!r} {proc.stderr.read()[-2000:]}")


def endpoint_args(opts: dict) -> list[str]:
    out = []
    for k, v in opts.items():
        flag = f"--{k.replace('_', '-')}"
        if v is True:
            out.append(flag)
        elif v is not False and v is not None:
            out += [flag, str(v)]
    return out


def addresses(spec: dict) -> dict:
    return netns.ADDR6 if spec.get("family") == "ipv6" else netns.ADDR4


def execute(spec: dict, work: str, names: netns.Names = netns.DEFAULT) -> dict:
    """Run `spec` in the namespaces `names`, files in `work`; return the raw material."""
    paths = {k: os.path.join(work, f) for k, f in FILES.items()}
    with open(paths["emu_cfg"], "w") as f:
        json.dump({"tun_a": names.dev["sender"], "tun_b": names.dev["receiver"],
                   "seed": spec["seed"], "a2b": spec["a2b"], "b2a": spec["b2a"],
                   "middlebox": spec.get("middlebox"), "rt_priority": EMULATOR_PRIORITY,
                   "middle_pcap": paths["mid_pcap"] if spec.get("middle_capture") else None,
                   "middlebox_log": paths["box_log"] if spec.get("middlebox") else None,
                   "log": paths["emu_log"], "summary": paths["emu_summary"]}, f)
    procs, captures = [], []
    netns.delete_all(names)
    try:
        emu = _python("emulator", paths["emu_cfg"])
        procs.append(emu)
        _wait_ready(emu, "emulator")
        for side in ("sender", "receiver"):
            cfg = spec[side]
            netns.create(names, side, cfg.get("sysctls", {}), cfg.get("gso_max_size"),
                         spec.get("mtu", 1500))
        for side, key in (("sender", "snd_pcap"), ("receiver", "rcv_pcap")):
            captures.append(Capture(names.ns[side], names.dev[side], paths[key],
                                    CAPTURE_PRIORITY))
        addr = addresses(spec)
        listener = spec.get("listen", "receiver")
        server_addr = addr[listener]
        common = {"addr": server_addr, "port": PORT, "duration": spec["duration_s"]}
        snd_opts = {**common, "out": paths["snd_out"], "cc": spec["cc"],
                    "listen": listener == "sender", **spec["sender"].get("app", {})}
        rcv_opts = {**common, "out": paths["rcv_out"], "connect": listener == "sender",
                    **spec["receiver"].get("app", {})}
        order = [("receiver", rcv_opts), ("sender", snd_opts)]
        if listener == "sender":
            order.reverse()
        started_ns = time.time_ns()
        running = {}
        for i, (side, opts) in enumerate(order):
            proc = _python("endpoint", side, *endpoint_args(opts), ns=names.ns[side],
                           priority=APP_PRIORITY)
            procs.append(proc)
            running[side] = proc
            if i == 0:
                _wait_ready(proc, side)
        limit = spec["duration_s"] + 90
        for side in ("sender", "receiver"):
            _, err = running[side].communicate(timeout=limit)
            if running[side].returncode != 0:
                raise RuntimeError(f"{side} exited {running[side].returncode}: {err[-2000:]}")
        time.sleep(0.3)  # let the last ACKs and FINs through the emulator into the captures
        tcpdump = {"sender": captures[0].stop(), "receiver": captures[1].stop()}
        links = {side: netns.link_stats(names.ns[side], names.dev[side])
                 for side in ("sender", "receiver")}
        sysctls = {side: netns.read_sysctls(names.ns[side]) for side in ("sender", "receiver")}
        emu.terminate()
        _, err = emu.communicate(timeout=300)
        if emu.returncode != 0:
            raise RuntimeError(f"emulator exited {emu.returncode}: {err[-2000:]}")
        out = {"paths": paths, "started_ns": started_ns, "tcpdump": tcpdump, "links": links,
               "sysctls": sysctls}
        for key, path in (("emulator", "emu_summary"), ("sender", "snd_out"),
                          ("receiver", "rcv_out")):
            with open(paths[path]) as f:
                out[key] = json.load(f)
        return out
    finally:
        for cap in captures:
            cap.kill()
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        netns.delete_all(names)
