"""Which flows a user means: `--flow` specs (a tcp.stream number or two endpoints), and
the worst-first order every report lists flows in.
"""

from __future__ import annotations

import re

from tcpdiag import _native, tables

#: Flows carrying less new data than this are hidden unless --all (too short to judge).
DEFAULT_MIN_BYTES = 100_000


def worst(flows: list[_native.Batch], min_bytes: int = DEFAULT_MIN_BYTES) -> int | None:
    """The stream of the worst flow with at least `min_bytes` of data (else of any flow),
    from a diagnosis' flows table (the engine's batches)."""
    idx = order(flows)
    if not idx:
        return None
    data = tables.column(flows, "data_bytes")
    big = [i for i in idx if data[i] >= min_bytes]
    return tables.column(flows, "stream")[(big or idx)[0]]


def order(flows: list[_native.Batch]) -> list[int]:
    """Row indices of a diagnosis' flows table worst first (the engine's order: primary
    severity, then the share it explains, then data, then stream number)."""
    return _native.worst_first(flows)


_ENDPOINTS = re.compile(r"^(\[[^\]]+\]|[^:\[\]\s]+):(\d+)-(\[[^\]]+\]|[^:\[\]\s]+):(\d+)$")


def _addr(text: str) -> str:
    import ipaddress  # here: only --flow IP:PORT-IP:PORT reads addresses

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


def select_streams(flows: list[_native.Batch], spec: str) -> list[int]:
    """The tcp.stream numbers `spec` names in a flows table (the engine's batches): an
    endpoint pair may match several flows when ports were reused. Raises ValueError when
    none matches."""
    want = parse_flow_spec(spec)
    streams = tables.column(flows, "stream")
    if isinstance(want, int):
        if want not in streams:
            raise ValueError(f"no flow with tcp.stream {want} (the capture has {len(streams)} flows)")
        return [want]
    pair = {want[0], want[1]}
    cols = {c: tables.column(flows, c) for c in ("a_addr", "a_port", "b_addr", "b_port")}
    found = [s for i, s in enumerate(streams)
             if {(_addr(cols["a_addr"][i]), cols["a_port"][i]), (_addr(cols["b_addr"][i]), cols["b_port"][i])} == pair]
    if not found:
        raise ValueError(f"no flow between {spec}")
    return found
