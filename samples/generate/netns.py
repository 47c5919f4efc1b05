"""The two test namespaces: one TUN each, addresses, per-namespace sysctls, teardown."""

import json
import subprocess

SENDER_NS, RECEIVER_NS = "tdsamp-snd", "tdsamp-rcv"
SENDER_DEV, RECEIVER_DEV = "tdsamp0", "tdsamp1"
ADDR4 = {SENDER_NS: "10.55.0.1", RECEIVER_NS: "10.55.0.2"}
ADDR6 = {SENDER_NS: "fd00:55::1", RECEIVER_NS: "fd00:55::2"}
# The emulator is the only path, and bursts of a slow-start window must not overflow the
# TUN's own transmit ring before the emulator reads them (that would be an unlogged drop).
TUN_TXQUEUELEN = 10000

# Recorded into the truth so a reader sees each namespace's effective TCP settings.
REPORTED_SYSCTLS = [
    "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_sack", "net.ipv4.tcp_dsack",
    "net.ipv4.tcp_timestamps", "net.ipv4.tcp_recovery", "net.ipv4.tcp_reordering",
    "net.ipv4.tcp_max_reordering", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_ecn", "net.ipv4.tcp_moderate_rcvbuf",
]


def sh(*args: str, check: bool = True) -> str:
    done = subprocess.run(args, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def in_ns(ns: str, *args: str, check: bool = True) -> str:
    return sh("ip", "netns", "exec", ns, *args, check=check)


def delete_all() -> None:
    existing = sh("ip", "netns", "list", check=False)
    for ns in (SENDER_NS, RECEIVER_NS):
        if ns in existing.split():
            sh("ip", "netns", "del", ns, check=False)


def create(ns: str, dev: str, sysctls: dict, gso_max_size: int | None) -> None:
    sh("ip", "netns", "add", ns)
    sh("ip", "link", "set", dev, "netns", ns)
    in_ns(ns, "ip", "link", "set", "lo", "up")
    in_ns(ns, "ip", "link", "set", dev, "mtu", "1500", "txqueuelen", str(TUN_TXQUEUELEN))
    if gso_max_size:
        in_ns(ns, "ip", "link", "set", dev, "gso_max_size", str(gso_max_size))
    in_ns(ns, "ip", "addr", "add", f"{ADDR4[ns]}/24", "dev", dev)
    in_ns(ns, "ip", "-6", "addr", "add", f"{ADDR6[ns]}/64", "dev", dev, "nodad")
    in_ns(ns, "ip", "link", "set", dev, "up")
    base = {"net.ipv4.tcp_no_metrics_save": 1}  # no cached metrics from an earlier run
    for key, value in {**base, **sysctls}.items():
        in_ns(ns, "sysctl", "-q", "-w", f"{key}={value}")


def read_sysctls(ns: str) -> dict:
    out = {}
    for key in REPORTED_SYSCTLS:
        value = in_ns(ns, "sysctl", "-n", key, check=False).strip()
        out[key] = " ".join(value.split())
    return out


def link_stats(ns: str, dev: str) -> dict:
    info = json.loads(in_ns(ns, "ip", "-s", "-j", "link", "show", dev))[0]
    stats = info.get("stats64", {})
    return {"tx": stats.get("tx", {}), "rx": stats.get("rx", {}),
            "gso_max_size": info.get("gso_max_size"), "txqlen": info.get("txqlen")}
