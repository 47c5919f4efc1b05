//! Interface: what pcap's file header or a pcapng Interface Description Block says about the
//! link a frame was captured on, and how its timestamps count.

const NS_PER_S: i64 = 1_000_000_000;

/// Timestamp resolution, pcapng `if_tsresol`: units of 10^-n or 2^-n seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsResolution {
    /// 10^-n s (pcap µs = 6, pcap ns = 9, pcapng default 6).
    Pow10(u8),
    /// 2^-n s (most significant bit of `if_tsresol` set).
    Pow2(u8),
}

/// Largest exponents whose unit count per second fits in a u64.
const MAX_POW10: u8 = 19;
const MAX_POW2: u8 = 63;
/// 2^-30 s is the first power of two shorter than a nanosecond.
const FINER_THAN_NS_POW2: u8 = 30;

impl TsResolution {
    pub const MICROS: TsResolution = TsResolution::Pow10(6);
    pub const NANOS: TsResolution = TsResolution::Pow10(9);

    /// Decodes the `if_tsresol` byte; `None` when units per second would not fit in a u64.
    pub fn from_tsresol(byte: u8) -> Option<TsResolution> {
        let exp = byte & 0x7f;
        if byte & 0x80 != 0 {
            (exp <= MAX_POW2).then_some(TsResolution::Pow2(exp))
        } else {
            (exp <= MAX_POW10).then_some(TsResolution::Pow10(exp))
        }
    }

    /// The `if_tsresol` byte for this resolution.
    pub fn to_tsresol(self) -> u8 {
        match self {
            TsResolution::Pow10(e) => e & 0x7f,
            TsResolution::Pow2(e) => 0x80 | (e & 0x7f),
        }
    }

    /// Nanoseconds in `ticks` units, truncated like Wireshark, saturating at i64::MAX.
    pub fn ticks_to_ns(self, ticks: u64) -> i64 {
        let ns: u128 = match self {
            TsResolution::Pow10(e) if e <= 9 => ticks as u128 * 10u128.pow(9 - e as u32),
            TsResolution::Pow10(e) => ticks as u128 / 10u128.pow(e.min(MAX_POW10) as u32 - 9),
            TsResolution::Pow2(e) => (ticks as u128 * NS_PER_S as u128) >> e.min(MAX_POW2),
        };
        i64::try_from(ns).unwrap_or(i64::MAX)
    }

    /// Units of this resolution in `ns` nanoseconds (the writer's inverse of `ticks_to_ns`).
    pub fn ns_to_ticks(self, ns: u64) -> u64 {
        let ticks: u128 = match self {
            TsResolution::Pow10(e) if e <= 9 => ns as u128 / 10u128.pow(9 - e as u32),
            TsResolution::Pow10(e) => ns as u128 * 10u128.pow(e.min(MAX_POW10) as u32 - 9),
            // Ticks longer than a nanosecond round down, like every conversion here;
            // shorter ones round up so that ticks_to_ns(ns_to_ticks(ns)) == ns.
            TsResolution::Pow2(e) if e < FINER_THAN_NS_POW2 => {
                ((ns as u128) << e) / NS_PER_S as u128
            }
            TsResolution::Pow2(e) => ((ns as u128) << e.min(MAX_POW2)).div_ceil(NS_PER_S as u128),
        };
        u64::try_from(ticks).unwrap_or(u64::MAX)
    }
}

/// One capture interface. pcap files have exactly one; pcapng interfaces are numbered in
/// file order across all sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceInfo {
    /// LINKTYPE_ value, without pcap's FCS bits.
    pub linktype: u32,
    /// Snapshot length; 0 means unlimited (pcapng).
    pub snaplen: u32,
    /// `if_name`.
    pub name: Option<String>,
    /// `if_description`.
    pub description: Option<String>,
    pub ts_resolution: TsResolution,
    /// `if_tsoffset`: seconds added to every timestamp of this interface.
    pub ts_offset_s: i64,
    /// Bytes of frame check sequence at the end of each frame, when the file says
    /// (pcap FCS bits, pcapng `if_fcslen`).
    pub fcs_len: Option<u8>,
    /// pcapng section (0-based) the interface belongs to; 0 for pcap.
    pub section: u32,
}

impl InterfaceInfo {
    /// An interface with microsecond timestamps and no name.
    pub fn new(linktype: u32, snaplen: u32) -> InterfaceInfo {
        InterfaceInfo {
            linktype,
            snaplen,
            name: None,
            description: None,
            ts_resolution: TsResolution::MICROS,
            ts_offset_s: 0,
            fcs_len: None,
            section: 0,
        }
    }

    /// Nanoseconds since the epoch of a timestamp in this interface's units.
    #[inline]
    pub fn ts_ns(&self, ticks: u64) -> i64 {
        let offset = self.ts_offset_s.saturating_mul(NS_PER_S);
        self.ts_resolution.ticks_to_ns(ticks).saturating_add(offset)
    }
}

/// Largest frame accepted on a link, as Wireshark's per-encapsulation maxima: 256 KiB,
/// except link types that carry whole messages or USB transfers.
pub fn max_caplen(linktype: u32) -> u32 {
    const STANDARD: u32 = 256 << 10;
    const LARGE: u32 = 16 << 20;
    const DBUS: u32 = 231;
    const USBPCAP: u32 = 249;
    const EBHSCR: u32 = 279;
    match linktype {
        DBUS | USBPCAP | EBHSCR => LARGE,
        _ => STANDARD,
    }
}

#[cfg(test)]
mod tests {
    use super::TsResolution;

    #[test]
    fn tsresol_byte_round_trips() {
        for b in [0u8, 3, 6, 9, 12, 19, 0x80, 0x94, 0xbf] {
            assert_eq!(TsResolution::from_tsresol(b).unwrap().to_tsresol(), b);
        }
        assert_eq!(TsResolution::from_tsresol(20), None);
        assert_eq!(TsResolution::from_tsresol(0xc0), None);
    }

    #[test]
    fn ticks_convert_in_every_form() {
        assert_eq!(TsResolution::Pow10(3).ticks_to_ns(1_500), 1_500_000_000);
        assert_eq!(TsResolution::Pow10(12).ticks_to_ns(1_234_567), 1_234);
        assert_eq!(TsResolution::Pow2(20).ticks_to_ns(1 << 20), 1_000_000_000);
        assert_eq!(TsResolution::Pow2(20).ticks_to_ns(1), 953);
        assert_eq!(TsResolution::Pow10(0).ticks_to_ns(u64::MAX), i64::MAX);
        assert_eq!(TsResolution::Pow2(63).ticks_to_ns(u64::MAX), 1_999_999_999);
    }

    #[test]
    fn ns_to_ticks_inverts_ticks_to_ns() {
        let ns = 1_700_000_000_123_456_789u64;
        for r in [
            TsResolution::NANOS,
            TsResolution::Pow2(30),
            TsResolution::Pow2(32),
        ] {
            assert_eq!(r.ticks_to_ns(r.ns_to_ticks(ns)), ns as i64, "{r:?}");
        }
        // Picoseconds since 1970 overflow a u64: ticks saturate, they do not wrap.
        assert_eq!(TsResolution::Pow10(12).ns_to_ticks(ns), u64::MAX);
    }
}
