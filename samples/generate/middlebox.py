"""A middlebox on the emulated path: header rewrites, each one logged with its old and new value.

Off unless a run asks for it (`"middlebox"` in the emulator config / run spec):

  strip_wscale  "syn" | "synack" | "both": the window-scale option (RFC 7323 2.2, kind 3)
                of that handshake segment becomes three NOPs
  clamp_mss     N: an MSS option (kind 2) above N in a SYN or SYN/ACK is lowered to N
  nat           {"inside": IP, "outside": IP, "port_offset": K}: a2b packets from IP
                `inside` leave from `outside`, their source port moved up by K (mod 2^16);
                b2a packets to `outside` go back to `inside`, port moved down by K
  isn_offset    {"a2b": D, "b2a": E}: every sequence number of direction d is moved by
                D (mod 2^32), and the peer's acknowledgment number and SACK blocks (kind 5)
                moved back by the same amount, so each end sees a consistent, shifted ISN

Then the IPv4 header checksum and the TCP checksum (RFC 9293 3.1, pseudo-header) are
updated incrementally (RFC 1624) for the changed words. The emulator applies them at the sender's end of the path (a2b as it reads a
packet, b2a just before it delivers one), so the middle capture sees the receiver's view.
"""

import ipaddress
import struct

OPT_EOL, OPT_NOP, OPT_MSS, OPT_WSCALE, OPT_SACK = 0, 1, 2, 3, 5
SYN, ACK = 0x02, 0x10


def _ip(pkt: bytearray):
    """(version, tcp offset, src slice, dst slice) or None when the packet is not TCP."""
    if len(pkt) >= 20 and pkt[0] >> 4 == 4 and pkt[9] == 6:
        return 4, (pkt[0] & 0x0F) * 4, slice(12, 16), slice(16, 20)
    if len(pkt) >= 40 and pkt[0] >> 4 == 6 and pkt[6] == 6:
        return 6, 40, slice(8, 24), slice(24, 40)
    return None


def _sum16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def fix_checksums(pkt: bytearray) -> None:
    ip = _ip(pkt)
    if ip is None:
        return
    version, at, src, dst = ip
    if version == 4:
        pkt[10:12] = b"\0\0"
        pkt[10:12] = struct.pack("!H", ~_sum16(bytes(pkt[:at])) & 0xFFFF)
        tcp_len = struct.unpack_from("!H", pkt, 2)[0] - at
    else:
        tcp_len = struct.unpack_from("!H", pkt, 4)[0]
    pseudo = bytes(pkt[src]) + bytes(pkt[dst])
    pseudo += struct.pack("!IxxxB", tcp_len, 6) if version == 6 else struct.pack("!xBH", 6, tcp_len)
    pkt[at + 16:at + 18] = b"\0\0"
    value = ~_sum16(pseudo + bytes(pkt[at:at + tcp_len])) & 0xFFFF
    pkt[at + 16:at + 18] = struct.pack("!H", value)


def _options(pkt: bytearray, at: int):
    """(kind, offset of the option's first byte, length) of each TCP option."""
    end = at + (pkt[at + 12] >> 4) * 4
    i = at + 20
    while i < min(end, len(pkt)):
        kind = pkt[i]
        if kind == OPT_EOL:
            return
        if kind == OPT_NOP:
            i += 1
            continue
        if i + 1 >= len(pkt) or pkt[i + 1] < 2:
            return
        yield kind, i, pkt[i + 1]
        i += pkt[i + 1]


def _fold(x: int) -> int:
    while x >> 16:
        x = (x & 0xFFFF) + (x >> 16)
    return x


def _words(buf, spans) -> int:
    return _fold(sum(sum(struct.unpack_from(f"!{(b - a) // 2}H", buf, a)) for a, b in spans))


def _adjust(pkt: bytearray, at: int, old: int, new: int) -> None:
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), with m, m' the sums of the changed words."""
    hc = struct.unpack_from("!H", pkt, at)[0]
    struct.pack_into("!H", pkt, at, ~_fold((~hc & 0xFFFF) + (~old & 0xFFFF) + new) & 0xFFFF)


def _update_checksums(pkt: bytearray, orig: bytes, changed: list, version: int, at: int) -> None:
    """Adjust the TCP checksum (and IPv4's, for header changes) for the bytes in `changed`
    ((start, end) offsets) incrementally: this runs per packet inside the emulator."""
    spans = []
    for a, b in sorted((a & ~1, (b + 1) & ~1) for a, b in changed):
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(b, spans[-1][1]))
        else:
            spans.append((a, b))
    _adjust(pkt, at + 16, _words(orig, spans), _words(pkt, spans))
    ip_spans = [sp for sp in spans if sp[1] <= at]
    if version == 4 and ip_spans:
        _adjust(pkt, 10, _words(orig, ip_spans), _words(pkt, ip_spans))


def _raw_sum(b: bytes) -> int:
    return sum(struct.unpack(f"!{len(b) // 2}H", b))


class Middlebox:
    """`cfg` prepared once; `rewrite` runs per packet inside the emulator, so 16-bit-aligned
    fields adjust the checksums from running word sums (RFC 1624) without re-reading."""

    def __init__(self, cfg: dict):
        self.strip = cfg.get("strip_wscale")
        self.clamp = cfg.get("clamp_mss")
        nat = cfg.get("nat")
        self.nat = None
        if nat:
            inside, outside = ipaddress.ip_address(nat["inside"]), ipaddress.ip_address(nat["outside"])
            k = nat.get("port_offset", 0)
            a, b = inside.packed, outside.packed
            # direction → (match, replacement, their word sums, port shift, names)
            self.nat = {"a2b": (a, b, _raw_sum(a), _raw_sum(b), k, str(inside), str(outside)),
                        "b2a": (b, a, _raw_sum(b), _raw_sum(a), -k, str(outside), str(inside))}
        off = cfg.get("isn_offset") or {}
        self.isn = {"a2b": (off.get("a2b", 0), off.get("b2a", 0)),
                    "b2a": (off.get("b2a", 0), off.get("a2b", 0))} if off else None

    def rewrite(self, pkt: bytearray, direction: str) -> list[tuple[str, object, object]]:
        """Rewrite one packet travelling `direction` ("a2b"/"b2a") in place; return the
        rewrites as (field, old, new)."""
        ip = _ip(pkt)
        if ip is None or len(pkt) < ip[1] + 20:
            return []
        version, at, src, dst = ip
        flags = pkt[at + 13]
        done = []
        sums = [0, 0, 0, 0]  # TCP old, TCP new, IPv4 header old, IPv4 header new
        if flags & SYN and (self.strip or self.clamp):
            orig, changed = bytes(pkt), []
            kind = "synack" if flags & ACK else "syn"
            for opt, i, length in list(_options(pkt, at)):
                if opt == OPT_WSCALE and self.strip in (kind, "both") and length == 3:
                    done.append((f"{kind}.wscale", pkt[i + 2], "stripped"))
                    pkt[i:i + 3] = bytes([OPT_NOP] * 3)
                    changed.append((i, i + 3))
                elif opt == OPT_MSS and self.clamp and length == 4:
                    mss = struct.unpack_from("!H", pkt, i + 2)[0]
                    if mss > self.clamp:
                        struct.pack_into("!H", pkt, i + 2, self.clamp)
                        done.append((f"{kind}.mss", mss, self.clamp))
                        changed.append((i + 2, i + 4))
            if changed:
                _update_checksums(pkt, orig, changed, version, at)
        if self.nat:
            match, new, m_old, m_new, shift, old_name, new_name = self.nat[direction]
            addr, port_at = (src, at) if direction == "a2b" else (dst, at + 2)
            if pkt[addr] == match:
                port = struct.unpack_from("!H", pkt, port_at)[0]
                moved = (port + shift) % 65536
                pkt[addr] = new
                struct.pack_into("!H", pkt, port_at, moved)
                done.append(("src" if direction == "a2b" else "dst", f"{old_name}:{port}",
                             f"{new_name}:{moved}"))
                sums[0] += m_old + port
                sums[1] += m_new + moved
                if version == 4:
                    sums[2] += m_old
                    sums[3] += m_new
        if self.isn:
            mine, back = self.isn[direction]
            if mine:
                self._add32(pkt, at + 4, mine, "seq", done, sums)
            if back and flags & ACK:
                self._add32(pkt, at + 8, -back, "ack", done, sums)
                doff = pkt[at + 12] >> 4
                if doff > 5 and not (doff == 8 and pkt[at + 20:at + 23] == b"\x01\x01\x08"):
                    for opt, i, length in list(_options(pkt, at)):
                        if opt != OPT_SACK:
                            continue
                        edges = range(i + 2, min(i + length, len(pkt)) - 3, 4)
                        if (i - at) % 2 == 0:
                            for e in edges:
                                self._add32(pkt, e, -back, "sack", done, sums)
                        else:  # unaligned blocks (no NOP padding): sum the spans instead
                            orig, scratch = bytes(pkt), [0, 0]
                            for e in edges:
                                self._add32(pkt, e, -back, "sack", done, scratch)
                            _update_checksums(pkt, orig, [(e, e + 4) for e in edges], version,
                                              at)
        if sums[0] != sums[1]:
            _adjust(pkt, at + 16, _fold(sums[0]), _fold(sums[1]))
        if sums[2] != sums[3]:
            _adjust(pkt, 10, _fold(sums[2]), _fold(sums[3]))
        return done

    @staticmethod
    def _add32(pkt, off, delta, field, done, sums) -> None:
        old = struct.unpack_from("!I", pkt, off)[0]
        new = (old + delta) % 2**32
        struct.pack_into("!I", pkt, off, new)
        done.append((field, old, new))
        sums[0] += (old >> 16) + (old & 0xFFFF)
        sums[1] += (new >> 16) + (new & 0xFFFF)


def rewrite(pkt: bytearray, direction: str, cfg: dict) -> list[tuple[str, object, object]]:
    """One-off form of Middlebox(cfg).rewrite(pkt, direction)."""
    return Middlebox(cfg).rewrite(pkt, direction)
