"""The scenarios: each one path, one pair of applications, and the story it must show.

`data` is the sender->receiver direction of the emulated link, `acks` the reverse. Rates are
moderate so the Python emulator keeps honest time on a shared 2-core machine.
"""

from dataclasses import dataclass, field

MS = 20  # one-way delay of every scenario: a 40 ms base RTT


def link(rate_mbit: float = 0, queue_bytes: int = 0, **impairments) -> dict:
    return {"delay_ms": MS, "rate_mbit": rate_mbit, "queue_bytes": queue_bytes, **impairments}


@dataclass
class Scenario:
    name: str
    story: str
    intended: str  # the verdict the scenario is built to show; the kernel must confirm it
    data: dict
    intended_also: tuple = ()  # further labels that must fire too
    acks: dict = field(default_factory=link)
    duration_s: float = 3.0
    cc: str = "cubic"
    sender: dict = field(default_factory=dict)  # endpoint.py sender options
    receiver: dict = field(default_factory=dict)  # endpoint.py receiver options
    sender_sysctls: dict = field(default_factory=dict)
    receiver_sysctls: dict = field(default_factory=dict)
    sender_gso_max_size: int | None = None
    ipv6: bool = False
    seed: int = 1
    middlebox: dict | None = None  # header rewrites on the path (middlebox.py)
    middle_capture: bool = False  # also capture at the path's midpoint (emulator.py)


SCENARIOS = [
    Scenario(
        "clean_bulk", "No impairment, a queue of 1.5 BDP: cubic fills the bottleneck.",
        "bandwidth-limited", data=link(20, 150_000)),
    Scenario(
        "bandwidth_limited", "A deep bottleneck queue (6 BDP): flight far above BDP, RTT inflates.",
        "bandwidth-limited", data=link(20, 600_000)),
    Scenario(
        "small_rcvbuf", "Receiver sets SO_RCVBUF=64 KiB before listen(): the window never grows "
        "past ~80 kB on a 250 kB BDP path (the static-buffer story).",
        "rwnd-limited:static-buffer", data=link(50, 500_000), receiver={"rcvbuf": 65536}),
    Scenario(
        "wscale_off", "Window scaling disabled in the receiver's namespace: the SYN offers it, "
        "the SYN/ACK does not, so the window is capped at 65,535 bytes.",
        "rwnd-limited:no-window-scaling", data=link(50, 500_000),
        receiver_sysctls={"net.ipv4.tcp_window_scaling": 0}),
    Scenario(
        "small_sndbuf", "Sender sets SO_SNDBUF=32 KiB (kernel doubles it) and keeps calling "
        "send() when the buffer is full; GSO size 1500 on its TUN makes the limit hard.",
        "sndbuf-limited", data=link(50, 500_000),
        sender={"sndbuf": 32768, "mode": "pressure"}, sender_gso_max_size=1500),
    Scenario(
        "app_limited", "Sender writes 64 KiB, then idles 50 ms, over and over.",
        "app-limited", data=link(20, 150_000),
        sender={"mode": "paced", "chunk": 65536, "gap_ms": 50}),
    Scenario(
        "reordering", "2% of data segments are held back 60 ms (more than the RTT): RACK "
        "marks them lost, retransmits, and DSACKs prove the retransmissions spurious.",
        "reorder-limited", data=link(20, 150_000, reorder=0.02, reorder_extra_ms=60)),
    Scenario(
        "random_loss", "1% random loss of data segments (seeded).",
        "loss-limited", data=link(20, 150_000, loss=0.01)),
    Scenario(
        "shallow_buffer", "A 15 kB bottleneck queue on a 100 kB BDP path: the first slow start "
        "ends in a burst of tail drops.",
        "slow-start-overshoot", data=link(20, 15_000)),
    Scenario(
        "slow_reader", "Receiver (SO_RCVBUF=128 KiB) stops reading for 1.5 s: the window "
        "closes to zero and the sender probes it.",
        "rwnd-limited:zero-window", data=link(20, 150_000), duration_s=4.0,
        receiver={"rcvbuf": 131072, "pause_at": 1.0, "pause_for": 1.5}),
    Scenario(
        "reorder_rcvbuf", "2% of data segments held back 60 ms, and a 64 KiB SO_RCVBUF: "
        "out-of-order data sits in the small buffer, so the window binds while DSACKs prove "
        "the retransmissions spurious.",
        "rwnd-limited:static-buffer", intended_also=("reorder-limited",),
        data=link(50, 500_000, reorder=0.02, reorder_extra_ms=60), receiver={"rcvbuf": 65536}),
    Scenario(
        "clean_bulk_ipv6", "clean_bulk over IPv6 (fd00:55::1 -> fd00:55::2).",
        "bandwidth-limited", data=link(20, 150_000), ipv6=True),
]

BY_NAME = {s.name: s for s in SCENARIOS}
