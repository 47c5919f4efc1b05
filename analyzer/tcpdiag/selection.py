"""Which flows a user means: `--flow` specs (a tcp.stream number or two endpoints), and
the worst-first order every report lists flows in.
"""

from __future__ import annotations

import ipaddress
import re

import numpy as np
import pyarrow as pa

from tcpdiag import tables

#: Flows carrying less new data than this are hidden unless --all (too short to judge).
DEFAULT_MIN_BYTES = 100_000
#: Severity order, worst last (the engine's codes: chat, note, warn, error).
SEVERITIES = ("chat", "note", "warn", "error")


def worst(flows: pa.Table, min_bytes: int = DEFAULT_MIN_BYTES) -> int | None:
    """The stream of the worst flow with at least `min_bytes` of data (else of any flow)."""
    idx = order(flows)
    if not len(idx):
        return None
    data = tables.numpy(flows.column("data_bytes"))
    big = idx[data[idx] >= min_bytes]
    return int(tables.numpy(flows.column("stream"))[(big if len(big) else idx)[0]])


def order(flows: pa.Table) -> np.ndarray:
    """Row indices worst first: primary severity, then the share it explains, then data,
    then stream number."""
    sev = flows.column("severity").combine_chunks()
    codes = tables.numpy(sev.indices).astype(np.int64) if len(sev) else np.empty(0, int)
    rank = np.array([SEVERITIES.index(s) for s in sev.dictionary.to_pylist()], dtype=np.int64) if len(sev) else []
    severity = rank[codes] if len(codes) else codes
    share = tables.numpy(flows.column("verdict_share"))
    data = tables.numpy(flows.column("data_bytes")).astype(np.float64)
    stream = tables.numpy(flows.column("stream"))
    return np.lexsort((stream, -data, -share, -severity))


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


def select_streams(flows: pa.Table, spec: str) -> list[int]:
    """The tcp.stream numbers `spec` names (an endpoint pair may match several flows when
    ports were reused). Raises ValueError when none matches."""
    want = parse_flow_spec(spec)
    streams = flows.column("stream").to_pylist()
    if isinstance(want, int):
        if want not in streams:
            raise ValueError(f"no flow with tcp.stream {want} (the capture has {len(streams)} flows)")
        return [want]
    pair = {want[0], want[1]}
    cols = flows.select(["a_addr", "a_port", "b_addr", "b_port"]).to_pydict()
    found = [s for i, s in enumerate(streams)
             if {(_addr(cols["a_addr"][i]), cols["a_port"][i]), (_addr(cols["b_addr"][i]), cols["b_port"][i])} == pair]
    if not found:
        raise ValueError(f"no flow between {spec}")
    return found
