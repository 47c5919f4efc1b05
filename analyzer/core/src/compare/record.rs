//! One capture's pass for a comparison: every TCP segment kept as a compact [`Seg`] (what it
//! takes to recognise the segment in the other capture and to judge its fate), the options
//! of handshake segments and the SACK blocks beside them, while the single-capture analysis
//! judges each flow in the same pass.

use crate::analyse::verdict::JudgeOptions;
use crate::analyse::{Analyzer, NoNotes};
use crate::decode::{flags, TcpSegment};
use crate::emit::diagnosis::Diagnosis;
use crate::flow::{FlowTable, Placement};
use crate::ingest::{Frame, FrameSource};
use crate::pipeline::{scan, Scan, SegmentSink};

/// `Seg::bits`: the direction within its flow (0 = from endpoint A of the flow).
pub const BIT_DIR: u8 = 1;
/// `Seg::bits`: the segment carries the timestamps option (`tsval` is meaningful).
pub const BIT_TS: u8 = 2;
/// `Seg::bits`: carried over IPv4 (`ip_id` is meaningful).
pub const BIT_V4: u8 = 4;
/// `Seg::bits`: number of SACK blocks (0–4), shifted.
const SACK_SHIFT: u8 = 3;

/// One TCP segment as a comparison keeps it (56 bytes). Sequence numbers are raw; the
/// matching maps them through each flow's ISN.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seg {
    pub ts_ns: i64,
    pub frame: u64,
    pub seq: u32,
    pub ack: u32,
    /// Payload bytes (`tcp.len`).
    pub len: u32,
    pub tsval: u32,
    /// Flow number (`tcp.stream`) in its capture.
    pub flow: u32,
    /// Index of its first SACK block in [`Capture::sacks`].
    pub sack_at: u32,
    pub ip_id: u16,
    pub window: u16,
    pub flags: u16,
    pub ttl: u8,
    pub tos: u8,
    /// [`BIT_DIR`], [`BIT_TS`], [`BIT_V4`] and the SACK block count.
    pub bits: u8,
}

impl Seg {
    /// 0 = from the flow's endpoint A, 1 = from B.
    #[inline]
    pub fn dir(&self) -> usize {
        (self.bits & BIT_DIR) as usize
    }
    #[inline]
    pub fn has_ts(&self) -> bool {
        self.bits & BIT_TS != 0
    }
    #[inline]
    pub fn v4(&self) -> bool {
        self.bits & BIT_V4 != 0
    }
    #[inline]
    pub fn sack_count(&self) -> usize {
        (self.bits >> SACK_SHIFT) as usize
    }
    #[inline]
    pub fn syn(&self) -> bool {
        self.flags & flags::SYN != 0
    }
    #[inline]
    pub fn fin(&self) -> bool {
        self.flags & flags::FIN != 0
    }
    /// Sequence space the segment occupies: its payload, plus one for SYN and for FIN.
    #[inline]
    pub fn seq_len(&self) -> u32 {
        self.len + self.syn() as u32 + self.fin() as u32
    }
    /// A segment that occupies no sequence space (a pure ACK, a RST, a window update).
    #[inline]
    pub fn is_pure_ack(&self) -> bool {
        self.seq_len() == 0
    }
}

/// The handshake options of one SYN or SYN/ACK (RFC 9293 §3.2, RFC 7323, RFC 2018).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynOpts {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: bool,
}

/// Everything the comparison keeps of one capture.
pub struct Capture {
    /// Every TCP segment, in capture order.
    pub segs: Vec<Seg>,
    /// SACK blocks (raw left, right edges), referenced by `Seg::sack_at`.
    pub sacks: Vec<(u32, u32)>,
    /// (index into `segs`, options) of every SYN.
    pub syns: Vec<(u32, SynOpts)>,
    /// The scan: flows (tcp.stream order), statistics and the damage, if any.
    pub scan: Scan,
    /// The single-capture diagnosis of every flow (verdict tables).
    pub diagnosis: Diagnosis,
    /// First and last frame time of the whole capture (any frame, TCP or not).
    pub span_ns: Option<(i64, i64)>,
}

impl Capture {
    /// The SACK blocks of segment `s`.
    pub fn sack_blocks(&self, s: &Seg) -> &[(u32, u32)] {
        let n = s.sack_count();
        if n == 0 {
            return &[];
        }
        let at = s.sack_at as usize;
        &self.sacks[at..at + n]
    }

    /// The options of the SYN at index `i` of `segs`.
    pub fn syn_opts(&self, i: u32) -> Option<SynOpts> {
        self.syns.binary_search_by_key(&i, |(j, _)| *j).ok().map(|k| self.syns[k].1)
    }

    /// Reads a capture once: records its segments and judges its flows.
    pub fn read(source: Box<dyn FrameSource>, opts: JudgeOptions) -> Capture {
        let mut pass = Pass {
            analyzer: Analyzer::with_store(NoNotes, opts, Diagnosis::new(opts)),
            rec: Recorder::default(),
        };
        let scan = scan(source, &mut pass);
        let (diagnosis, _) = pass.analyzer.finish_into(&scan.flows);
        let Recorder { segs, sacks, syns, first_ts, last_ts } = pass.rec;
        Capture { segs, sacks, syns, scan, diagnosis, span_ns: first_ts.map(|f| (f, last_ts)) }
    }
}

/// The recording half of the pass.
#[derive(Default)]
pub struct Recorder {
    pub segs: Vec<Seg>,
    pub sacks: Vec<(u32, u32)>,
    pub syns: Vec<(u32, SynOpts)>,
    first_ts: Option<i64>,
    last_ts: i64,
}

impl Recorder {
    #[inline]
    pub fn record(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        let o = &seg.options;
        let n_sack = o.sack_count.min(4);
        let sack_at = self.sacks.len() as u32;
        self.sacks.extend_from_slice(o.sack_blocks());
        let (tsval, has_ts) = match o.timestamps {
            Some((v, _)) => (v, BIT_TS),
            None => (0, 0),
        };
        let bits = place.dir.index() as u8
            | has_ts
            | if seg.ip_version == 4 { BIT_V4 } else { 0 }
            | (n_sack << SACK_SHIFT);
        if seg.flags & flags::SYN != 0 {
            let opts = SynOpts {
                mss: o.mss,
                wscale: o.wscale,
                sack_permitted: o.sack_permitted,
                timestamps: o.timestamps.is_some(),
            };
            self.syns.push((self.segs.len() as u32, opts));
        }
        self.segs.push(Seg {
            ts_ns: frame.ts_ns,
            frame: frame.number,
            seq: seg.seq,
            ack: seg.ack,
            len: seg.payload_len,
            tsval,
            flow: place.flow,
            sack_at,
            ip_id: seg.ip_id,
            window: seg.window,
            flags: seg.flags,
            ttl: seg.ttl,
            tos: seg.tos,
            bits,
        });
    }

    /// Notes the time of every frame, TCP or not: the span the capture covered.
    #[inline]
    fn saw(&mut self, ts_ns: i64) {
        if self.first_ts.is_none() {
            self.first_ts = Some(ts_ns);
        }
        self.last_ts = self.last_ts.max(ts_ns);
    }
}

/// The analysis and the recorder fed the same segments.
struct Pass {
    analyzer: Analyzer<NoNotes, Diagnosis>,
    rec: Recorder,
}

impl SegmentSink for Pass {
    #[inline]
    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        self.analyzer.segment(frame, seg, place);
        self.rec.record(frame, seg, place);
    }

    #[inline]
    fn tick(&mut self, table: &FlowTable, now_ns: i64) {
        self.rec.saw(now_ns);
        self.analyzer.tick(table, now_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_is_kept_in_56_bytes() {
        assert_eq!(std::mem::size_of::<Seg>(), 56);
    }
}
