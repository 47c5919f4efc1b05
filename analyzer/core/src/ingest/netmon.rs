//! Microsoft Network Monitor 1.x and 2.x capture files (NetMon 2 and 3 write 2.x; the
//! format is described in the Network Monitor 3 help, "Capture File Format"): a 128-byte
//! little-endian file header, frame records, and a frame table of 32-bit record offsets.
//!
//! The frame table, not the order of records in the file, gives the frames and their
//! order (records may have holes between them, and the table may list a record before
//! one stored earlier), so this reader needs random access ([`RandomAccess`]).
//!
//! Times: the header holds the capture start as a SYSTEMTIME, in the capturing machine's
//! local time with no zone recorded; it is read as UTC (Wireshark reads it in the zone of
//! the machine reading the file). Records count from there, in milliseconds (1.x) or
//! microseconds (2.x); version 2.3 also stores a UTC FILETIME per frame, which is used.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::interface::{InterfaceInfo, TsResolution};
use super::pcapng::Packet;
use super::random_access::RandomAccess;
use super::{IngestError, IngestErrorKind};

pub const MAGICS: [&[u8; 4]; 2] = [b"RTSS", b"GMBU"];
/// Header fields (after the 4-byte magic), all little-endian.
mod header {
    pub const LEN: usize = 64;
    pub const VERSION_MINOR: usize = 4;
    pub const VERSION_MAJOR: usize = 5;
    pub const NETWORK: usize = 6;
    /// SYSTEMTIME: year, month, day of week, day, hour, minute, second, millisecond.
    pub const START: usize = 8;
    pub const FRAME_TABLE_OFFSET: usize = 24;
    pub const FRAME_TABLE_LENGTH: usize = 28;
}
/// Record headers: 1.x `ts_delta_ms: u32, orig_len: u16, incl_len: u16`; 2.x
/// `ts_delta_us: u64, orig_len: u32, incl_len: u32`.
const RECORD_1X_LEN: usize = 8;
const RECORD_2X_LEN: usize = 16;
/// Per-frame trailer after the data from 2.1 on: network type (2); 2.2 adds a process
/// index (4); 2.3 a UTC FILETIME (8) and a time zone index (1).
const TRAILER_2_1: usize = 2;
const TRAILER_2_2: usize = 6;
const TRAILER_2_3: usize = 15;
const TRAILER_UTC_TIME: usize = 6;
/// Largest frame accepted (as Wireshark: 256 KiB).
const MAX_FRAME: u32 = 256 << 10;
/// A table of more entries than 8-byte records fit in 4 GiB is corrupt.
const MAX_FRAMES: u32 = 512 << 20;
/// 100-ns intervals from 1601-01-01 (FILETIME's epoch) to 1970-01-01.
const FILETIME_UNIX_EPOCH: i64 = 116_444_736_000_000_000;

const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_IEEE802_5: u32 = 6;
const LINKTYPE_FDDI: u32 = 10;
const LINKTYPE_RAW: u32 = 101;
const LINKTYPE_IEEE802_11: u32 = 105;
/// NetMon's own record kinds (802.11 with NetMon's radio header, ETW events, adapter
/// lists, filters) keep their frame number but carry no packet: link types above every
/// LINKTYPE_ value, counted as frames that are not TCP.
pub const LINKTYPE_NETMON_META: u32 = 0xffff_0000;

/// Per-frame network types: a LINKTYPE_ value in the low 12 bits of 0xE000-0xEFFF.
const NETWORK_PCAP_BASE: u16 = 0xe000;
/// Reassembly headers, adapter lists and the DNS cache: Wireshark skips them without a
/// frame number.
const NETWORK_SKIPPED: [u16; 3] = [0xfffc, 0xfffd, 0xfffe];

pub fn detect(head: &[u8]) -> bool {
    MAGICS.iter().any(|m| head.starts_with(*m))
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// What a NetMon network type number means for us.
enum Network {
    Link(u32),
    /// A frame without a packet (metadata).
    Meta,
    /// Not a frame at all.
    Skip,
    Unknown,
}

fn network(n: u16) -> Network {
    match n {
        0 | 1 => Network::Link(LINKTYPE_ETHERNET),
        2 => Network::Link(LINKTYPE_IEEE802_5),
        3 => Network::Link(LINKTYPE_FDDI),
        6 => Network::Meta,
        7..=9 => Network::Link(LINKTYPE_RAW),
        0xe080 => Network::Link(LINKTYPE_IEEE802_11),
        0xe083..=0xe088 => Network::Meta,
        n if n & 0xf000 == NETWORK_PCAP_BASE && n < 0xe080 => Network::Link((n & 0x0fff) as u32),
        0xffe0 | 0xfffb | 0xffff => Network::Meta,
        n if NETWORK_SKIPPED.contains(&n) => Network::Skip,
        _ => Network::Unknown,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The SYSTEMTIME at `b` as nanoseconds since the epoch (read as UTC).
fn systemtime_ns(b: &[u8]) -> i64 {
    let f = |i: usize| le16(b, i * 2) as i64;
    let days = days_from_civil(f(0), f(1).clamp(1, 12), f(3));
    let secs = days * 86_400 + f(4) * 3_600 + f(5) * 60 + f(6);
    secs * 1_000_000_000 + f(7) * 1_000_000
}

pub struct NetmonState {
    file: BufReader<RandomAccess>,
    major: u8,
    minor: u8,
    start_ns: i64,
    table: Vec<u32>,
    next: usize,
    /// The file's link type (1.x, 2.0); later versions name one per frame.
    file_linktype: Option<u32>,
    buf: Vec<u8>,
    /// Link type of each interface, in order of first use.
    linktypes: Vec<u32>,
    len: u64,
    /// File offset `file` stands at (records usually follow each other: no seek then).
    pos: u64,
    /// Bytes of the file read so far, for progress (a file; a buffered stream was counted
    /// as it was read).
    raw_bytes: Option<Arc<AtomicU64>>,
}

fn io_at(offset: u64) -> impl Fn(std::io::Error) -> IngestError {
    move |e| IngestError::io(e, offset)
}

/// Reads the header and the frame table. `raw_bytes` follows the reading of a file. The
/// interface of a file with one link type comes back; files from 2.1 on name a link type
/// per frame, and their interfaces appear as frames use them.
pub fn open(mut ra: RandomAccess, raw_bytes: Option<Arc<AtomicU64>>) -> Result<(NetmonState, Vec<InterfaceInfo>), IngestError> {
    let len = ra.seek(SeekFrom::End(0)).map_err(io_at(0))?;
    let mut h = [0u8; header::LEN];
    if len < header::LEN as u64 {
        return Err(IngestError::truncated(header::LEN, len as usize, 0));
    }
    ra.seek(SeekFrom::Start(0)).and_then(|_| ra.read_exact(&mut h)).map_err(io_at(0))?;
    let (major, minor) = (h[header::VERSION_MAJOR], h[header::VERSION_MINOR]);
    if !(1..=2).contains(&major) {
        let what = format!("Network Monitor file format {major}.{minor} (1.x and 2.x are read)");
        return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
    }
    let per_frame = major == 2 && minor >= 1;
    let net = le16(&h, header::NETWORK);
    let file_linktype = match network(net) {
        Network::Link(lt) if net < 12 => Some(lt),
        Network::Meta if net < 12 => Some(LINKTYPE_NETMON_META | net as u32),
        _ => {
            let what = format!("Network Monitor network type {net}");
            return Err(IngestError::new(IngestErrorKind::Unsupported(what), header::NETWORK as u64, 0));
        }
    };
    let table_at = le32(&h, header::FRAME_TABLE_OFFSET) as u64;
    let table_len = le32(&h, header::FRAME_TABLE_LENGTH);
    let bad = if table_len % 4 != 0 || table_len == 0 {
        Some(format!("Network Monitor frame table length {table_len} is not a positive multiple of 4"))
    } else if table_len / 4 > MAX_FRAMES {
        Some(format!("Network Monitor frame table of {} entries exceeds the maximum {MAX_FRAMES}", table_len / 4))
    } else {
        None
    };
    if let Some(what) = bad {
        return Err(IngestError::corrupt(what, header::FRAME_TABLE_LENGTH as u64));
    }
    if table_at + table_len as u64 > len {
        return Err(IngestError::new(
            IngestErrorKind::Truncated { needed: table_at + table_len as u64, available: len },
            table_at,
            0,
        ));
    }
    let mut raw = vec![0u8; table_len as usize];
    ra.seek(SeekFrom::Start(table_at)).and_then(|_| ra.read_exact(&mut raw)).map_err(io_at(table_at))?;
    let table = raw.chunks_exact(4).map(|c| le32(c, 0)).collect();
    let first = if per_frame { None } else { file_linktype };
    let resolution = if major == 1 { TsResolution::Pow10(3) } else if minor >= 3 { TsResolution::Pow10(7) } else { TsResolution::MICROS };
    let ifaces = first.map(|lt| InterfaceInfo { ts_resolution: resolution, ..InterfaceInfo::new(lt, 0) });
    let st = NetmonState {
        file: BufReader::with_capacity(1 << 16, ra),
        major,
        minor,
        start_ns: systemtime_ns(&h[header::START..header::START + 16]),
        table,
        next: 0,
        file_linktype: first,
        buf: Vec::new(),
        linktypes: first.into_iter().collect(),
        len,
        pos: u64::MAX,
        raw_bytes,
    };
    Ok((st, ifaces.into_iter().collect()))
}

impl NetmonState {
    /// The interface index for `linktype`, and its description when it is new.
    fn interface(&mut self, linktype: u32) -> (u32, Option<InterfaceInfo>) {
        if let Some(i) = self.linktypes.iter().position(|&l| l == linktype) {
            return (i as u32, None);
        }
        self.linktypes.push(linktype);
        let resolution = if self.minor >= 3 { TsResolution::Pow10(7) } else { TsResolution::MICROS };
        let iface = InterfaceInfo { ts_resolution: resolution, ..InterfaceInfo::new(linktype, 0) };
        (self.linktypes.len() as u32 - 1, Some(iface))
    }

    /// Moves to file offset `at`, keeping the read buffer when `at` is just ahead.
    fn goto(&mut self, at: u64) -> std::io::Result<()> {
        if at != self.pos {
            match at.checked_sub(self.pos) {
                Some(ahead) if ahead < 1 << 16 => self.file.seek_relative(ahead as i64)?,
                _ => {
                    self.file.seek(SeekFrom::Start(at))?;
                }
            }
            self.pos = at;
        }
        Ok(())
    }

    fn read_exact_at(&mut self, at: u64, buf: &mut [u8]) -> Result<(), IngestError> {
        let available = self.len.saturating_sub(at);
        if (buf.len() as u64) > available {
            return Err(IngestError::truncated(buf.len(), available as usize, at));
        }
        let r = self.goto(at).and_then(|_| self.file.read_exact(buf));
        self.pos = if r.is_ok() { at + buf.len() as u64 } else { u64::MAX };
        r.map_err(io_at(at))
    }

    fn trailer_len(&self) -> usize {
        match (self.major, self.minor) {
            (2, 1) => TRAILER_2_1,
            (2, 2) => TRAILER_2_2,
            (2, m) if m >= 3 => TRAILER_2_3,
            _ => 0,
        }
    }
}

/// Reads the next frame (in frame-table order); `Ok(None)` after the last. A new
/// interface (a link type not seen before) is pushed to `ifaces`.
pub fn read_frame<'a>(st: &'a mut NetmonState, ifaces: &mut Vec<InterfaceInfo>) -> Result<Option<Packet<'a>>, IngestError> {
    loop {
        let Some(&at) = st.table.get(st.next) else { return Ok(None) };
        st.next += 1;
        let at = at as u64;
        let hlen = if st.major == 1 { RECORD_1X_LEN } else { RECORD_2X_LEN };
        let mut h = [0u8; RECORD_2X_LEN];
        st.read_exact_at(at, &mut h[..hlen])?;
        let (delta_ns, orig, incl) = if st.major == 1 {
            (le32(&h, 0) as i64 * 1_000_000, le16(&h, 4) as u32, le16(&h, 6) as u32)
        } else {
            // Microseconds, unsigned on paper; times before the start appear as huge
            // values that wrap to negative once counted in 100 ns.
            let us = u64::from_le_bytes(h[..8].try_into().unwrap_or_default());
            ((us.wrapping_mul(10) as i64).wrapping_mul(100), le32(&h, 8), le32(&h, 12))
        };
        if incl > MAX_FRAME {
            let what = format!("Network Monitor frame captured length {incl} exceeds the maximum {MAX_FRAME}");
            return Err(IngestError::corrupt(what, at));
        }
        let tlen = st.trailer_len();
        let mut buf = std::mem::take(&mut st.buf);
        buf.resize(incl as usize + tlen, 0);
        let read = st.read_exact_at(at + hlen as u64, &mut buf);
        st.buf = buf;
        read?;
        if let Some(c) = &st.raw_bytes {
            c.fetch_max(at + (hlen + incl as usize + tlen) as u64, Ordering::Relaxed);
        }
        let mut ts_ns = st.start_ns.saturating_add(delta_ns);
        let linktype = match st.file_linktype {
            Some(lt) => lt,
            None => {
                let t = &st.buf[incl as usize..];
                let net = le16(t, 0);
                if tlen == TRAILER_2_3 {
                    let ft = i64::from_le_bytes(t[TRAILER_UTC_TIME..TRAILER_UTC_TIME + 8].try_into().unwrap_or_default());
                    ts_ns = ft.saturating_sub(FILETIME_UNIX_EPOCH).saturating_mul(100);
                }
                match network(net) {
                    Network::Link(lt) => lt,
                    Network::Meta => LINKTYPE_NETMON_META | net as u32,
                    Network::Skip => continue,
                    Network::Unknown => {
                        let what = format!("Network Monitor frame network type 0x{net:04x} unknown");
                        return Err(IngestError::corrupt(what, at));
                    }
                }
            }
        };
        let (interface, new) = st.interface(linktype);
        if let Some(i) = new {
            ifaces.push(i);
        }
        return Ok(Some(Packet {
            interface,
            ts_ns,
            origlen: orig,
            data: &st.buf[..incl as usize],
            has_options: false,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systemtime_is_read_as_utc() {
        let mut b = Vec::new();
        for v in [2024u16, 2, 4, 29, 13, 45, 30, 250] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        // 2024-02-29 13:45:30.250 UTC
        assert_eq!(systemtime_ns(&b), 1_709_214_330_250_000_000);
    }

    #[test]
    fn network_types_map_to_linktypes() {
        assert!(matches!(network(1), Network::Link(LINKTYPE_ETHERNET)));
        assert!(matches!(network(9), Network::Link(LINKTYPE_RAW)));
        assert!(matches!(network(0xe000 | 113), Network::Link(113)));
        assert!(matches!(network(0xfffd), Network::Skip));
        assert!(matches!(network(0xfffb), Network::Meta));
        assert!(matches!(network(5), Network::Unknown));
    }
}
