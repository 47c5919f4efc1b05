"""The flows and packets tables as plain columns (no pandas), straight from the core.

The CLI uses this module so that it imports without pandas; `tcpdiag.api` turns the same
columns into DataFrames.
"""

from __future__ import annotations

import os
import stat
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

from tcpdiag import _native
from tcpdiag.errors import CaptureDamagedError, CaptureError, CaptureWarning, NotACaptureError, from_native

#: Flows-table columns in display order with their meaning (docs/tables.md is generated
#: from this).
FLOW_COLUMNS: dict[str, str] = {
    "stream": "Flow number, equal to Wireshark's tcp.stream",
    "a_addr": "Endpoint A address: source of the flow's first packet (the client if the SYN was captured)",
    "a_port": "Endpoint A port",
    "b_addr": "Endpoint B address",
    "b_port": "Endpoint B port",
    "first_frame": "First frame of the flow (Wireshark frame.number)",
    "last_frame": "Last frame of the flow",
    "start": "Time of the first packet, seconds since the Unix epoch",
    "duration_s": "Seconds from first to last packet",
    "packets_ab": "Packets from A to B",
    "packets_ba": "Packets from B to A",
    "bytes_ab": "Frame bytes from A to B (as tshark -z conv,tcp counts)",
    "bytes_ba": "Frame bytes from B to A",
    "payload_ab": "TCP payload bytes from A to B (sum of tcp.len, retransmissions included)",
    "payload_ba": "TCP payload bytes from B to A",
    "handshake": "Both SYN and SYN/ACK captured",
    "syn_frame_a": "Frame of A's SYN (empty if not captured)",
    "syn_frame_b": "Frame of B's SYN/ACK (empty if not captured)",
    "mss_a": "MSS option in A's SYN",
    "mss_b": "MSS option in B's SYN/ACK",
    "wscale_a": "Window-scale shift in A's SYN (empty: option absent or SYN not captured)",
    "wscale_b": "Window-scale shift in B's SYN/ACK",
    "wscale_in_effect": "Window scaling in effect (both SYNs carry it); empty when unknown",
    "sack_permitted": "SACK permitted by both sides; empty when unknown",
    "timestamps": "Timestamps negotiated by both sides; empty when unknown",
    "ecn": "ECN negotiated (RFC 3168); empty when unknown",
    "fin_a": "A sent a FIN",
    "fin_b": "B sent a FIN",
    "rst_a": "A sent a RST",
    "rst_b": "B sent a RST",
}

#: Packets-table columns with their meaning and the tshark field that gives the same value.
PACKET_COLUMNS: dict[str, tuple[str, str]] = {
    "frame": ("Frame number", "frame.number"),
    "stream": ("Flow number", "tcp.stream"),
    "dir": ("0 = from endpoint A to B, 1 = from B to A", ""),
    "ts": ("Capture time (UTC)", "frame.time_epoch"),
    "src": ("Source address", "ip.src / ipv6.src"),
    "sport": ("Source port", "tcp.srcport"),
    "dst": ("Destination address", "ip.dst / ipv6.dst"),
    "dport": ("Destination port", "tcp.dstport"),
    "seq_raw": ("Sequence number as on the wire", "tcp.seq_raw"),
    "ack_raw": ("Acknowledgement number as on the wire", "tcp.ack_raw"),
    "tcp_len": ("TCP payload length from the IP lengths (not the captured length)", "tcp.len"),
    "flags": ("TCP flag bits (FIN=1 SYN=2 RST=4 PSH=8 ACK=16 URG=32 ECE=64 CWR=128 AE=256)", "tcp.flags"),
    "win_raw": ("Window field before scaling", "tcp.window_size_value"),
}


@dataclass
class ScanResult:
    """One pass over a capture: flow columns, decoder statistics and the damage, if any."""

    file: str
    flows: dict[str, list[Any]]
    stats: dict[str, Any]
    error: CaptureError | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return isinstance(self.error, CaptureDamagedError)

    def warnings(self) -> list[str]:
        """Lines about frames that were read but could not be analysed."""
        s, out = self.stats, []
        for linktype, frames, first in s.get("unknown_linktypes", []):
            out.append(f"{self.file}: frame {first}: link type {linktype} not supported ({frames} frames skipped)")
        if s.get("undecodable"):
            frame, why = s["first_undecodable"]
            out.append(f"{self.file}: frame {frame}: {why} ({s['undecodable']} frames with a cut or malformed "
                       "TCP/IP header skipped)")
        return out

    def nothing_decodable(self) -> CaptureError | None:
        """An error when the capture held frames but none tcpdiag can decode (only unknown
        link types): an empty result would look like "no TCP here", which is not true."""
        s = self.stats
        if s.get("tcp_segments") or s.get("not_tcp") or not s.get("unknown_linktypes"):
            return None
        linktype, frames, first = s["unknown_linktypes"][0]
        return NotACaptureError(self.file, f"frame {first}: link type {linktype} not supported "
                                f"({frames} frames), nothing to analyse", kind="unsupported")


def _flow_columns(raw: dict[str, list[Any]]) -> dict[str, list[Any]]:
    first, last = raw.pop("first_ts_ns"), raw.pop("last_ts_ns")
    raw["start"] = [t / 1e9 for t in first]
    raw["duration_s"] = [(b - a) / 1e9 for a, b in zip(first, last)]
    return {name: raw[name] for name in FLOW_COLUMNS}


def _result(file: str, raw: dict) -> ScanResult:
    res = ScanResult(file, _flow_columns(raw["flows"]), raw["stats"])
    if raw["error"] is not None:
        res.error = from_native(file, raw["error"], partial=res)
    return res


def rereadable(path: str) -> bool:
    """True when `path` can be read a second time: a regular file. Standard input, a FIFO
    and a shell's `<(...)` (`/dev/fd/N`) give their bytes once. Looks at the path with
    `stat` only: opening a FIFO to find out would consume its writer."""
    if path == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # a missing file: the reading itself reports it


def check(res: ScanResult, errors: str) -> ScanResult:
    """Applies the caller's policy: raise on any damage, or warn and keep partial results.

    Inputs that yield nothing (missing file, not a capture) always raise.
    """
    err = res.error or res.nothing_decodable()
    if err is None:
        return res
    if not isinstance(err, CaptureDamagedError) or errors == "raise":
        raise err
    warnings.warn(f"{err}; results cover the {err.frames_read} frames before it", CaptureWarning, stacklevel=3)
    return res


def scan_flows(path: str) -> ScanResult:
    """Reads the capture once and returns the flows table (errors are in `.error`)."""
    return _result(path, _native.scan_flows(path))


def write_packets_csv(path: str, out: str, analysis: bool = False) -> ScanResult:
    """Streams the packets table of `path` to the CSV file `out` ("-" = stdout), with the
    analysis columns when `analysis` is true."""
    raw = _native.write_packets_csv(path, out, analysis)
    res = _result(path, raw)
    res.extra["write_error"] = raw.get("write_error")
    return res


def write_annotations(path: str, out: str) -> ScanResult:
    """Writes the Wireshark plugin's annotations of `path` (the engine's per-packet notes
    and flow verdicts, docs/wireshark.md) to the file `out`."""
    raw = _native.write_annotations(path, out)
    res = _result(path, raw)
    res.extra["write_error"] = raw.get("write_error")
    return res


class PacketChunks:
    """Iterates the packets table in chunks (dicts of numpy arrays); `.result` after the end."""

    def __init__(self, path: str, chunk_rows: int = 1_000_000, analysis: bool = False,
                 vantage: str | None = None) -> None:
        self.path = path
        self._it = _native.PacketChunks(path, chunk_rows, analysis, vantage)
        self.result: ScanResult | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        yield from self._it
        self.result = _result(self.path, self._it.result())
