//! Classic pcap (libpcap savefile, draft-ietf-opsawg-pcap): the file header and the packet
//! records after it.

use super::byte_order::ByteOrder;
use super::interface::{max_caplen, InterfaceInfo, TsResolution};
use super::source::ByteSource;
use super::{IngestError, IngestErrorKind};

/// Magic numbers as written in the file's own byte order.
pub const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Alexey Kuznetsov's patched libpcap: 8 more bytes per record header.
pub const MAGIC_MODIFIED: u32 = 0xa1b2_cd34;

pub const FILE_HEADER_LEN: usize = 24;
/// File header field offsets.
mod file_header {
    pub const VERSION_MAJOR: usize = 4;
    pub const VERSION_MINOR: usize = 6;
    pub const SNAPLEN: usize = 16;
    pub const LINKTYPE: usize = 20;
}

const RECORD_HEADER_LEN: usize = 16;
/// Kuznetsov records append ifindex (4), protocol (2), pkt_type (1) and padding (1).
const MODIFIED_RECORD_HEADER_LEN: usize = 24;
/// Record header field offsets.
mod record {
    pub const TS_SEC: usize = 0;
    pub const TS_FRAC: usize = 4;
    pub const INCL_LEN: usize = 8;
    pub const ORIG_LEN: usize = 12;
}

/// The link-type field: LINKTYPE_ in the low 26 bits; bit 26 says bits 28-31 hold the FCS
/// length in 16-bit words.
const LINKTYPE_MASK: u32 = 0x03ff_ffff;
const FCS_PRESENT: u32 = 0x0400_0000;
const FCS_SHIFT: u32 = 28;

/// What the magic number says: byte order, timestamp unit, record layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcapMagic {
    pub order: ByteOrder,
    pub nanos: bool,
    pub modified: bool,
}

/// Recognises the four pcap magics (and the modified one) in either byte order.
pub fn detect(magic: [u8; 4]) -> Option<PcapMagic> {
    let (le, be) = (u32::from_le_bytes(magic), u32::from_be_bytes(magic));
    let (order, m) = if matches!(le, MAGIC_MICROS | MAGIC_NANOS | MAGIC_MODIFIED) {
        (ByteOrder::Little, le)
    } else if matches!(be, MAGIC_MICROS | MAGIC_NANOS | MAGIC_MODIFIED) {
        (ByteOrder::Big, be)
    } else {
        return None;
    };
    Some(PcapMagic {
        order,
        nanos: m == MAGIC_NANOS,
        modified: m == MAGIC_MODIFIED,
    })
}

/// Per-file state needed to read records.
#[derive(Debug, Clone)]
pub struct PcapState {
    pub magic: PcapMagic,
    record_header_len: usize,
    max_caplen: u32,
    lengths: LengthOrder,
    /// Little-endian with the lengths in their usual order (most files): a record header
    /// is then its four words as read, one test a record instead of three.
    plain: bool,
    /// Nanoseconds per unit of the timestamp fraction (1 or 1,000): a product, not a test.
    frac_ns: i64,
}

/// Files older than format 2.3 wrote orig_len before incl_len; 2.3 files may have either
/// order (libpcap's rule: take the smaller as the captured length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LengthOrder {
    Normal,
    Swapped,
    MaybeSwapped,
}

/// Reads the file header; `magic` was recognised by `detect`.
pub fn read_header(
    src: &mut ByteSource,
    magic: PcapMagic,
) -> Result<(PcapState, InterfaceInfo), IngestError> {
    let have = src
        .fill(FILE_HEADER_LEN)
        .map_err(|e| IngestError::io(e, 0))?;
    if have < FILE_HEADER_LEN {
        return Err(IngestError::truncated(FILE_HEADER_LEN, have, 0));
    }
    let h = src.take(FILE_HEADER_LEN);
    let order = magic.order;
    let major = order.u16(h, file_header::VERSION_MAJOR);
    let minor = order.u16(h, file_header::VERSION_MINOR);
    if major < 2 {
        let what = format!("pcap format version {major}.{minor} (before 2.0)");
        return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
    }
    let lengths = match (major, minor) {
        (2, 0..=2) => LengthOrder::Swapped,
        (2, 3) => LengthOrder::MaybeSwapped,
        _ => LengthOrder::Normal,
    };
    let raw_linktype = order.u32(h, file_header::LINKTYPE);
    let mut iface = InterfaceInfo::new(
        raw_linktype & LINKTYPE_MASK,
        order.u32(h, file_header::SNAPLEN),
    );
    if raw_linktype & FCS_PRESENT != 0 {
        // The field counts 16-bit words.
        iface.fcs_len = Some(((raw_linktype >> FCS_SHIFT) * 2) as u8);
    }
    iface.ts_resolution = if magic.nanos {
        TsResolution::NANOS
    } else {
        TsResolution::MICROS
    };
    let state = PcapState {
        magic,
        record_header_len: if magic.modified {
            MODIFIED_RECORD_HEADER_LEN
        } else {
            RECORD_HEADER_LEN
        },
        max_caplen: max_caplen(iface.linktype),
        lengths,
        plain: magic.order == ByteOrder::Little && lengths == LengthOrder::Normal,
        frac_ns: if magic.nanos { 1 } else { 1_000 },
    };
    Ok((state, iface))
}

impl PcapState {
    /// Bytes of a record header.
    pub fn record_header_len(&self) -> usize {
        self.record_header_len
    }

    /// Largest captured length a record may claim.
    pub fn max_caplen(&self) -> u32 {
        self.max_caplen
    }

    /// A record header's seconds, fraction, captured and original length (the latter two
    /// in the file version's order already resolved).
    #[inline]
    pub fn header(&self, h: &[u8]) -> [u32; 4] {
        // One fixed-size read (`array::map` here was not inlined: 7 % of reading a file).
        let h: &[u8; RECORD_HEADER_LEN] = h[..RECORD_HEADER_LEN].try_into().expect("a record header");
        let word = |at: usize| u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
        let mut w = [word(record::TS_SEC), word(record::TS_FRAC), word(record::INCL_LEN), word(record::ORIG_LEN)];
        if self.plain {
            return w;
        }
        // One test of the byte order a record, not one a field (nor a call through a
        // function pointer).
        if self.magic.order == ByteOrder::Big {
            w.iter_mut().for_each(|x| *x = x.swap_bytes());
        }
        let [sec, frac, mut incl, mut orig] = w;
        if self.lengths == LengthOrder::Swapped
            || (self.lengths == LengthOrder::MaybeSwapped && incl > orig)
        {
            std::mem::swap(&mut incl, &mut orig);
        }
        [sec, frac, incl, orig]
    }

    /// The record's time in nanoseconds since the epoch.
    #[inline]
    pub fn ts_ns(&self, sec: u32, frac: u32) -> i64 {
        sec as i64 * 1_000_000_000 + frac as i64 * self.frac_ns
    }
}

/// One packet record, borrowed from the source.
pub struct Record<'a> {
    pub ts_ns: i64,
    pub origlen: u32,
    pub data: &'a [u8],
}

/// Where the next record stands when its header and data are already buffered whole:
/// its time, original length and total bytes (header included). `None` for anything
/// else (the buffer's end, a bad length, the file's end): `read_record` decides those.
#[derive(Debug, Clone, Copy)]
pub struct WholeRecord {
    pub ts_ns: i64,
    pub origlen: u32,
    pub total: usize,
}

/// [`WholeRecord`] of the bytes `b` buffered at a record's start. Only reads `b`, so a
/// caller can decide before it borrows the source to take the record.
#[inline(always)]
pub fn whole_record(st: &PcapState, b: &[u8]) -> Option<WholeRecord> {
    let hlen = st.record_header_len;
    if b.len() < hlen {
        return None;
    }
    let [sec, frac, incl, orig] = st.header(b);
    let total = hlen + incl as usize;
    (incl <= st.max_caplen && b.len() >= total).then(|| WholeRecord { ts_ns: st.ts_ns(sec, frac), origlen: orig, total })
}

/// Reads the next record; `Ok(None)` at a clean end of file. Inlined: returned through
/// memory, the record was read back before its stores had landed (a stall that was over
/// half of `CaptureReader::next_frame`).
/// [`read_record`] for the usual case, a record whose header and data are already
/// buffered whole: one look at the buffer instead of two `fill`s; anything else (the
/// buffer's end, a bad length, the file's end) goes to `read_record`, which decides it.
#[inline]
pub fn read_buffered_record<'a>(
    st: &PcapState,
    src: &'a mut ByteSource,
) -> Result<Option<Record<'a>>, IngestError> {
    match whole_record(st, src.buffered()) {
        Some(r) => {
            let rec = src.take(r.total);
            Ok(Some(Record { ts_ns: r.ts_ns, origlen: r.origlen, data: rec.get(st.record_header_len..).unwrap_or_default() }))
        }
        None => read_record(st, src),
    }
}

#[inline]
pub fn read_record<'a>(
    st: &PcapState,
    src: &'a mut ByteSource,
) -> Result<Option<Record<'a>>, IngestError> {
    let start = src.offset();
    let hlen = st.record_header_len;
    let have = src.fill(hlen).map_err(|e| IngestError::io(e, start))?;
    if have == 0 {
        // A gzip stream cut inside a member ends at a record boundary only by chance.
        if src.cut_short() {
            return Err(IngestError::truncated(hlen, 0, start));
        }
        return Ok(None);
    }
    if have < hlen {
        return Err(IngestError::truncated(hlen, have, start));
    }
    let [sec, frac, incl, orig] = st.header(src.peek(hlen));
    if incl > st.max_caplen {
        let what = format!(
            "pcap record captured length {incl} exceeds the maximum {} for this link type",
            st.max_caplen
        );
        return Err(IngestError::corrupt(what, start));
    }
    let total = hlen + incl as usize;
    let have = src.fill(total).map_err(|e| IngestError::io(e, start))?;
    if have < total {
        return Err(IngestError::truncated(total, have, start));
    }
    let ts_ns = st.ts_ns(sec, frac);
    let rec = src.take(total);
    Ok(Some(Record {
        ts_ns,
        origlen: orig,
        data: rec.get(hlen..).unwrap_or_default(),
    }))
}
