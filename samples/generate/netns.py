"""The two test namespaces: one TUN each, addresses, per-namespace sysctls, teardown.

Names carry a prefix (`Names`), so two generator runs with different prefixes can coexist on
one machine; the addresses are the same in every pair (each pair is its own little world).
"""

import json
import subprocess
from dataclasses import dataclass

ADDR4 = {"sender": "10.55.0.1", "receiver": "10.55.0.2"}
ADDR6 = {"sender": "fd00:55::1", "receiver": "fd00:55::2"}
NAT4, NAT6 = "10.55.0.77", "fd00:55::77"  # where a NAT middlebox makes the sender appear


@dataclass(frozen=True)
class Names:
    """Namespaces `PREFIX-snd`/`PREFIX-rcv` with devices `PREFIX0`/`PREFIX1`."""

    prefix: str = "tdsamp"

    def __post_init__(self):
        if not self.prefix.replace("-", "").isalnum() or len(self.prefix) > 12:
            raise ValueError(f"prefix {self.prefix!r}: up to 12 letters, digits or '-'")

    @property
    def ns(self) -> dict:
        return {"sender": f"{self.prefix}-snd", "receiver": f"{self.prefix}-rcv"}

    @property
    def dev(self) -> dict:
        return {"sender": f"{self.prefix}0", "receiver": f"{self.prefix}1"}


DEFAULT = Names()
SENDER_NS, RECEIVER_NS = DEFAULT.ns["sender"], DEFAULT.ns["receiver"]
SENDER_DEV, RECEIVER_DEV = DEFAULT.dev["sender"], DEFAULT.dev["receiver"]
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


def delete_all(names: Names = DEFAULT) -> None:
    existing = sh("ip", "netns", "list", check=False)
    for ns in names.ns.values():
        if ns in existing.split():
            sh("ip", "netns", "del", ns, check=False)


def create(names: Names, side: str, sysctls: dict, gso_max_size: int | None,
           mtu: int = 1500) -> None:
    """Namespace and TUN of `side` ("sender"/"receiver"); the TUN must already exist (the
    emulator created it in the root namespace)."""
    ns, dev = names.ns[side], names.dev[side]
    sh("ip", "netns", "add", ns)
    sh("ip", "link", "set", dev, "netns", ns)
    in_ns(ns, "ip", "link", "set", "lo", "up")
    in_ns(ns, "ip", "link", "set", dev, "mtu", str(mtu), "txqueuelen", str(TUN_TXQUEUELEN))
    if gso_max_size:
        in_ns(ns, "ip", "link", "set", dev, "gso_max_size", str(gso_max_size))
    in_ns(ns, "ip", "addr", "add", f"{ADDR4[side]}/24", "dev", dev)
    if mtu >= 1280:  # below it the kernel disables IPv6 on the device
        in_ns(ns, "ip", "-6", "addr", "add", f"{ADDR6[side]}/64", "dev", dev, "nodad")
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
