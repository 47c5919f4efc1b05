"""What the report says about each flow, as plain data (no pandas): who talked, how fast,
the verdict with its shares and evidence, and the ceiling arithmetic.

The text, JSON and HTML reporters all render this one model, so they cannot disagree.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from tcpdiag.report import ceiling as ceiling_mod

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis, Finding, FlowVerdict

#: Severity order, worst first (catalogue/findings.toml: severity is policy).
SEVERITY_RANK = {"error": 3, "warn": 2, "note": 1, "chat": 0}
#: Flows carrying less new data than this are hidden unless --all (too short to judge).
DEFAULT_MIN_BYTES = 100_000
#: Names of the limit states in sentences.
STATE_WORDS = {
    "rwnd": "receive window", "zero_window": "zero window", "recovery": "loss recovery",
    "cwnd": "congestion window", "sndbuf": "send buffer", "app": "application", "idle": "idle (nothing to send)",
    "unknown": "unknown",
}


@dataclass
class Endpoint:
    addr: str
    port: int

    def __str__(self) -> str:
        return f"[{self.addr}]:{self.port}" if ":" in self.addr else f"{self.addr}:{self.port}"


@dataclass
class FlowReport:
    stream: int
    sender: Endpoint
    receiver: Endpoint
    vantage: str
    start: float
    duration_s: float
    first_frame: int
    last_frame: int
    packets: int
    data_bytes: int
    payload_bytes: int
    frame_bytes: int
    facts: dict[str, Any]
    shares: dict[str, float]
    findings: list["Finding"]
    ceiling: ceiling_mod.Ceiling
    options: dict[str, Any]
    hidden: str | None = None
    rank: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def primary(self) -> "Finding":
        return self.findings[0]

    @property
    def goodput_bps(self) -> float:
        return float(self.facts.get("goodput_bps") or 0.0)

    def sort_key(self) -> tuple:
        p = self.primary
        return (-SEVERITY_RANK.get(p.severity, 0), -p.share, -self.data_bytes, self.stream)

    def busy_states(self) -> list[tuple[str, float]]:
        """Limit states by share of the busy time, largest first, zero shares dropped."""
        return sorted(((k, v) for k, v in self.shares.items() if v >= 0.005), key=lambda kv: -kv[1])


def _row(columns: dict[str, list[Any]], i: int) -> dict[str, Any]:
    return {k: v[i] for k, v in columns.items()}


def flow_report(row: dict[str, Any], verdict: "FlowVerdict", target_bps: float | None = None) -> FlowReport:
    a, b = Endpoint(row["a_addr"], row["a_port"]), Endpoint(row["b_addr"], row["b_port"])
    dd = verdict.data_dir
    side = "ab" if dd == 0 else "ba"
    sender, receiver = (a, b) if dd == 0 else (b, a)
    facts = dict(verdict.facts)
    p = verdict.primary
    return FlowReport(
        stream=verdict.stream, sender=sender, receiver=receiver, vantage=verdict.vantage,
        start=row["start"], duration_s=row["duration_s"], first_frame=row["first_frame"],
        last_frame=row["last_frame"], packets=row["packets_ab"] + row["packets_ba"],
        data_bytes=int(facts.get("data_bytes") or 0), payload_bytes=row[f"payload_{side}"],
        frame_bytes=row["bytes_ab"] + row["bytes_ba"], facts=facts, shares=dict(verdict.shares),
        findings=list(verdict.findings),
        ceiling=ceiling_mod.compute(p.id, p.values, facts, target_bps),
        options={k: row[k] for k in ("handshake", "wscale_in_effect", "wscale_a", "wscale_b", "mss_a", "mss_b",
                                     "sack_permitted", "timestamps", "ecn")},
    )


def build(analysis: "Analysis", *, target_bps: float | None = None, min_bytes: int = DEFAULT_MIN_BYTES,
          show_all: bool = False, streams: Iterable[int] | None = None) -> list[FlowReport]:
    """Every flow (or those in `streams`), worst first; `.hidden` says why a flow is not
    shown by default (None: shown)."""
    cols = analysis.scan.flows
    wanted = None if streams is None else set(streams)
    out = []
    for i, stream in enumerate(cols["stream"]):
        if wanted is not None and stream not in wanted:
            continue
        r = flow_report(_row(cols, i), analysis.verdicts[stream], target_bps)
        if wanted is None and not show_all and r.data_bytes < min_bytes:
            r.hidden = f"less than {min_bytes:,} B of data"
        out.append(r)
    out.sort(key=lambda r: (r.hidden is not None, r.sort_key()))
    for rank, r in enumerate(out, 1):
        r.rank = rank
    return out


# ---------------------------------------------------------------- --flow selection

_ENDPOINTS = re.compile(r"^(\[[^\]]+\]|[^:\[\]\s]+):(\d+)-(\[[^\]]+\]|[^:\[\]\s]+):(\d+)$")


def _addr(text: str) -> str:
    return str(ipaddress.ip_address(text.strip("[]")))


def parse_flow_spec(spec: str) -> int | tuple[tuple[str, int], tuple[str, int]]:
    """'3' (Wireshark tcp.stream) or 'IP:port-IP:port' (IPv6 in brackets, either order)."""
    spec = spec.strip()
    if spec.isdigit():
        return int(spec)
    m = _ENDPOINTS.match(spec)
    if not m:
        raise ValueError(f"{spec!r}: expected a tcp.stream number or IP:port-IP:port "
                         "(e.g. 3, 10.0.0.1:5201-10.0.0.2:40000, [fd00::1]:443-[fd00::2]:5000)")
    try:
        return ((_addr(m.group(1)), int(m.group(2))), (_addr(m.group(3)), int(m.group(4))))
    except ValueError as e:
        raise ValueError(f"{spec!r}: {e}") from None


def select_streams(flows: dict[str, list[Any]], spec: str) -> list[int]:
    """The tcp.stream numbers `spec` names (an endpoint pair may match several flows when
    ports were reused). Raises ValueError when none matches."""
    want = parse_flow_spec(spec)
    streams = list(flows["stream"])
    if isinstance(want, int):
        if want not in streams:
            raise ValueError(f"no flow with tcp.stream {want} (the capture has {len(streams)} flows)")
        return [want]
    pair = {want[0], want[1]}
    found = []
    for i, s in enumerate(streams):
        a = (_addr(flows["a_addr"][i]), flows["a_port"][i])
        b = (_addr(flows["b_addr"][i]), flows["b_port"][i])
        if {a, b} == pair:
            found.append(s)
    if not found:
        raise ValueError(f"no flow between {spec}")
    return found
