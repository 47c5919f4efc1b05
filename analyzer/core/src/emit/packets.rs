//! The packets table: one row per TCP segment, with the values Wireshark shows as
//! `frame.number, tcp.stream, frame.time_epoch, ip.src, tcp.srcport, ip.dst, tcp.dstport,
//! tcp.seq_raw, tcp.ack_raw, tcp.len, tcp.flags, tcp.window_size_value`.

use ahash::AHashMap;

use crate::decode::{Addr, TcpSegment};
use crate::flow::Placement;
use crate::ingest::Frame;
use crate::pipeline::SegmentSink;

/// Column names in order, shared by the CSV header, the DataFrame and the docs.
pub const COLUMNS: [&str; 13] = [
    "frame", "stream", "dir", "ts", "src", "sport", "dst", "dport", "seq_raw", "ack_raw", "tcp_len", "flags", "win_raw",
];

/// Addresses repeat on every packet of a flow: store a small code per row and the
/// distinct addresses once per chunk.
#[derive(Default)]
pub struct AddrDict {
    codes: AHashMap<Addr, u32>,
    pub values: Vec<Addr>,
}

impl AddrDict {
    #[inline]
    pub fn code(&mut self, a: Addr) -> u32 {
        let next = self.values.len() as u32;
        *self.codes.entry(a).or_insert_with(|| {
            self.values.push(a);
            next
        })
    }
}

/// A chunk of the packets table in columns.
#[derive(Default)]
pub struct PacketColumns {
    pub frame: Vec<u64>,
    pub stream: Vec<u32>,
    /// 0 = from endpoint A (the flow's first source) to B, 1 = from B.
    pub dir: Vec<u8>,
    pub ts_ns: Vec<i64>,
    pub src: Vec<u32>,
    pub sport: Vec<u16>,
    pub dst: Vec<u32>,
    pub dport: Vec<u16>,
    pub seq_raw: Vec<u32>,
    pub ack_raw: Vec<u32>,
    pub tcp_len: Vec<u32>,
    pub flags: Vec<u16>,
    pub win_raw: Vec<u16>,
    pub addrs: AddrDict,
}

impl PacketColumns {
    pub fn len(&self) -> usize {
        self.frame.len()
    }
    pub fn is_empty(&self) -> bool {
        self.frame.is_empty()
    }
}

impl SegmentSink for PacketColumns {
    #[inline]
    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        self.frame.push(frame.number);
        self.stream.push(place.flow);
        self.dir.push(place.dir as u8);
        self.ts_ns.push(frame.ts_ns);
        let src = self.addrs.code(seg.src);
        self.src.push(src);
        self.sport.push(seg.sport);
        let dst = self.addrs.code(seg.dst);
        self.dst.push(dst);
        self.dport.push(seg.dport);
        self.seq_raw.push(seg.seq);
        self.ack_raw.push(seg.ack);
        self.tcp_len.push(seg.payload_len);
        self.flags.push(seg.flags);
        self.win_raw.push(seg.window);
    }
}
