"""The terminal report: one block per flow, worst first, in words an engineer can act on.

Colour only when asked (the CLI asks on a TTY without NO_COLOR); frame numbers are given
as Wireshark display filters so they can be pasted straight into the filter bar.
"""

from __future__ import annotations

from typing import IO

from tcpdiag.report import units
from tcpdiag.report.model import STATE_WORDS, FlowReport

_SEVERITY_COLOUR = {"error": "red", "warn": "yellow", "note": "cyan", "chat": "green"}
_ANSI = {"red": 31, "green": 32, "yellow": 33, "cyan": 36}
#: Evidence frames listed per finding: enough to start in Wireshark, not a dump.
MAX_FRAMES = 5


class Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def _sgr(self, text: str, *codes: int) -> str:
        if not self.colour or not codes:
            return text
        return f"\x1b[{';'.join(map(str, codes))}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self._sgr(text, 1)

    def dim(self, text: str) -> str:
        return self._sgr(text, 2)

    def severity(self, text: str, severity: str) -> str:
        return self._sgr(text, 1, _ANSI[_SEVERITY_COLOUR.get(severity, "cyan")])


def frame_filter(frames: list[int]) -> str:
    """A Wireshark display filter opening the evidence: `frame.number == 153`."""
    shown = frames[:MAX_FRAMES]
    if not shown:
        return ""
    if len(shown) == 1:
        return f"frame.number == {shown[0]}"
    return "frame.number in {" + " ".join(map(str, shown)) + "}"


def shares_line(r: FlowReport) -> str:
    parts = [f"{STATE_WORDS.get(k, k)} {v:.0%}" for k, v in r.busy_states()]
    return ", ".join(parts) if parts else "no busy time measured"


def flow_block(r: FlowReport, s: Style) -> list[str]:
    p, f = r.primary, r.facts
    head = f"#{r.rank}  flow {r.stream}  {r.sender} → {r.receiver}"
    vantage = f"captured at the {r.vantage}" if r.vantage in ("sender", "receiver") else f"vantage {r.vantage}"
    rtt = f"RTT min {units.ms(f.get('min_rtt_ms'))} / avg {units.ms(f.get('mean_rtt_ms'))}"
    lines = [
        s.bold(head) + s.dim(f"   ({vantage}; tcp.stream == {r.stream})"),
        f"  {units.size(r.data_bytes)} in {units.seconds(r.duration_s)} = {units.rate(r.goodput_bps)} goodput; "
        f"{rtt}; {f.get('retrans', 0)} retransmissions",
        "  " + s.severity(p.id.replace("_", " ").upper(), p.severity) + "  " + p.message,
        f"  time:      {shares_line(r)}",
    ]
    for i, text in enumerate(r.ceiling.lines):
        lines.append(("  ceiling:   " if i == 0 else "             ") + text)
    if p.remedy:
        lines.append(f"  remedy:    {p.remedy}")
    if p.frames:
        lines.append(f"  evidence:  {frame_filter(p.frames)}")
    for other in r.findings[1:]:
        ev = f"  [{frame_filter(other.frames)}]" if other.frames else ""
        lines.append(f"  also:      {s.severity(other.id, other.severity)}: {other.message}{ev}")
    return lines


def render(reports: list[FlowReport], out: IO[str], *, capture: str, colour: bool = False,
           stats: dict | None = None) -> None:
    """Writes the report of the shown flows; a closing line counts the hidden ones."""
    s = Style(colour)
    shown = [r for r in reports if r.hidden is None]
    hidden = len(reports) - len(shown)
    if stats is not None:
        out.write(s.bold(f"{capture}") + f": {len(reports)} TCP flows, {stats.get('tcp_segments', 0):,} segments"
                  f" in {stats.get('frames', 0):,} frames\n\n")
    for r in shown:
        out.write("\n".join(flow_block(r, s)) + "\n\n")
    if not shown:
        out.write("No flow to report.\n")
    if hidden:
        out.write(s.dim(f"{hidden} short flow{'s' if hidden != 1 else ''} hidden (less data than --min-bytes); "
                        "--all shows them\n"))

