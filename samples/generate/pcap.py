"""Minimal classic-pcap reader (micro- or nanosecond, either byte order, .gz or plain)."""

import gzip
import struct
from typing import Iterator, Tuple

_MAGICS = {0xA1B2C3D4: 1000, 0xA1B23C4D: 1}  # magic -> nanoseconds per fractional unit
LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6 = 101, 228, 229


def _open(path: str):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def read(path: str) -> Iterator[Tuple[int, int, bytes]]:
    """Yield (timestamp ns, original length, captured bytes) of raw-IP captures."""
    with _open(path) as f:
        header = f.read(24)
        for endian in ("<", ">"):
            magic = struct.unpack(endian + "I", header[:4])[0]
            if magic in _MAGICS:
                break
        else:
            raise ValueError(f"{path}: not a classic pcap file")
        scale = _MAGICS[magic]
        linktype = struct.unpack(endian + "I", header[20:24])[0] & 0x0FFFFFFF
        if linktype not in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6):
            raise ValueError(f"{path}: link type {linktype} is not raw IP")
        rec = struct.Struct(endian + "IIII")
        while True:
            head = f.read(16)
            if len(head) < 16:
                return
            sec, frac, caplen, origlen = rec.unpack(head)
            yield sec * 1_000_000_000 + frac * scale, origlen, f.read(caplen)


def write(path: str, records, snaplen: int) -> int:
    """Write (timestamp ns, captured bytes, original length) records as a nanosecond raw-IP
    pcap, the format tcpdump writes with --time-stamp-precision=nano; returns the count."""
    n = 0
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, snaplen, LINKTYPE_RAW))
        for ts, data, length in records:
            sec, nsec = divmod(ts, 1_000_000_000)
            f.write(struct.pack("<IIII", sec, nsec, len(data), length))
            f.write(data)
            n += 1
    return n
