"""The terminal report: one block per flow, worst first, in words an engineer can act on.

Colour only when asked (the CLI asks on a TTY without NO_COLOR); frame numbers are given
as Wireshark display filters so they can be pasted straight into the filter bar.
"""

from __future__ import annotations

import io
from typing import IO, TYPE_CHECKING

from tcpdiag.report import model
from tcpdiag.report.model import FlowReport, Shown

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

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


def flow_block(r: FlowReport, s: Style) -> list[str]:
    p, row = r.primary, r.row
    head = f"#{r.rank}  flow {r.stream}  {r.sender} → {r.receiver}"
    vantage = f"captured at the {row['vantage']}" if row["vantage"] in ("sender", "receiver") \
        else f"vantage {row['vantage']}"
    lines = [
        s.bold(head) + s.dim(f"   ({vantage}; tcp.stream == {r.stream})"),
        f"  {row['transfer_line']}",
        "  " + s.severity(p.id.replace("_", " ").upper(), p.severity) + "  " + p.message,
        f"  time:      {row['time_line']}",
    ]
    for i, text in enumerate(row["ceiling_lines"]):
        lines.append(("  ceiling:   " if i == 0 else "             ") + text)
    if p.remedy:
        lines.append(f"  remedy:    {p.remedy}")
    lines.append(f"  control:   {row['cc_line']}")
    if p.frames:
        lines.append(f"  evidence:  {frame_filter(p.frames)}")
    for other in r.findings[1:]:
        ev = f"  [{frame_filter(other.frames)}]" if other.frames else ""
        lines.append(f"  also:      {s.severity(other.id, other.severity)}: {other.message}{ev}")
    return lines


def render(shown: Shown, out: IO[str], *, capture: str, colour: bool = False, stats: dict | None = None) -> None:
    """Writes the report of the shown flows; a closing line counts the hidden ones."""
    s = Style(colour)
    if stats is not None:
        out.write(s.bold(f"{capture}") + f": {shown.total} TCP flows, {stats.get('tcp_segments', 0):,} segments"
                  f" in {stats.get('frames', 0):,} frames\n\n")
    for r in shown.reports:
        out.write("\n".join(flow_block(r, s)) + "\n\n")
    if not shown.reports:
        out.write("No flow to report.\n")
    if shown.hidden:
        out.write(s.dim(f"{shown.hidden:,} short flow{'s' if shown.hidden != 1 else ''} hidden (less data than "
                        f"--min-bytes {shown.min_bytes:,} B); --all shows them\n"))


def report(analysis: "Analysis", flow: int | str | None = None) -> str:
    """The terminal report as text: one flow, or every shown flow worst first."""
    streams = None if flow is None else [analysis.stream_of(flow)]
    shown = model.build(analysis, streams=streams)
    out = io.StringIO()
    render(shown, out, capture=analysis.file)
    return out.getvalue()
