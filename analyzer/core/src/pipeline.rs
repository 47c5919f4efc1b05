//! The single pass that ties ① ingest, ② decode and ③ flow together: frames are read,
//! decoded and placed in flows, and every TCP segment is handed to a sink.

use crate::decode::{self, Decoded, Layer, StopReason, TcpSegment};
use crate::flow::{FlowSummary, FlowTable, Placement};
use crate::ingest::{CaptureReader, Frame, FrameSource, IngestError};

/// Receives each TCP segment after it has been placed in its flow.
pub trait SegmentSink {
    /// False for a sink that never reads the segment it is given: the scan then decodes
    /// common frames only as far as the flows table needs (`decode::lean`).
    const READS_SEGMENTS: bool = true;
    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement);
    /// After each frame, with the flows table and the frame's time: a sink may finish
    /// flows that closed (the analysis does).
    #[inline]
    fn tick(&mut self, _table: &FlowTable, _now_ns: i64) {}
    /// True once the sink can take no more (its output closed): the scan stops early.
    fn stopped(&self) -> bool {
        false
    }
}

/// A sink that keeps nothing (the flows table alone).
pub struct NoSink;
impl SegmentSink for NoSink {
    const READS_SEGMENTS: bool = false;
    #[inline]
    fn segment(&mut self, _: &Frame<'_>, _: &TcpSegment, _: Placement) {}
}

/// Counts of what the decoder met, reported so users know what was not analysed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub frames: u64,
    pub tcp_segments: u64,
    pub not_tcp: u64,
    /// Frames whose TCP header was cut by the snaplen or a malformed header.
    pub undecodable: u64,
    pub fragments: u64,
    /// TCP headers quoted in ICMP errors (numbered like Wireshark, not analysed).
    pub icmp_quoted: u64,
    /// Link types met that the decoder does not know: (link type, frames, first frame).
    pub unknown_linktypes: Vec<(u32, u64, u64)>,
    /// First frame that could not be decoded, and why (for the warning line).
    pub first_undecodable: Option<(u64, String)>,
    pub input_bytes: u64,
    /// The capture format ("pcap", "pcapng", "snoop", "peekclassic", "netmon", "etl"; ""
    /// for merged pieces of different formats).
    pub format: &'static str,
}

impl ScanStats {
    /// Counts a frame (numbered `frame`) that decoding stopped on. Takes the number, not
    /// the frame: a frame borrowed by this out-of-line call was kept in memory by every
    /// scan loop, where it otherwise stays in registers.
    pub(crate) fn count_stop(&mut self, frame: u64, layer: Layer, reason: StopReason) {
        match reason {
            StopReason::NotTcp | StopReason::Encrypted => self.not_tcp += 1,
            StopReason::Fragment => self.fragments += 1,
            // NetMon's metadata records (ETW events, adapter lists) are frames without a packet.
            StopReason::UnknownLinkType(lt) if lt >= crate::ingest::netmon::LINKTYPE_NETMON_META => self.not_tcp += 1,
            StopReason::UnknownLinkType(lt) => match self.unknown_linktypes.iter_mut().find(|(t, _, _)| *t == lt) {
                Some((_, n, _)) => *n += 1,
                None => self.unknown_linktypes.push((lt, 1, frame)),
            },
            StopReason::Truncated { .. } | StopReason::Malformed(_) => {
                self.undecodable += 1;
                if self.first_undecodable.is_none() {
                    self.first_undecodable = Some((frame, reason.describe(layer)));
                }
            }
        }
    }
}

/// The outcome of one pass. `error` is set when the capture is damaged; everything read
/// before the damage is still in `flows`.
pub struct Scan {
    pub flows: Vec<FlowSummary>,
    pub stats: ScanStats,
    pub error: Option<IngestError>,
}

/// A resumable pass over one capture, so tables can be handed out in bounded chunks.
pub struct Scanner {
    reader: Box<dyn FrameSource>,
    table: FlowTable,
    /// The frame being placed, decoded in place.
    seg: TcpSegment,
    stats: ScanStats,
    error: Option<IngestError>,
    done: bool,
}

impl Scanner {
    pub fn new(reader: impl FrameSource + 'static) -> Scanner {
        Scanner::boxed(Box::new(reader))
    }

    pub fn boxed(reader: Box<dyn FrameSource>) -> Scanner {
        Scanner { reader, table: FlowTable::new(), seg: TcpSegment::default(), stats: ScanStats::default(), error: None, done: false }
    }

    /// Reads until `max_segments` TCP segments went to `sink` or the capture ended.
    /// Returns false once the capture is exhausted (or damaged).
    pub fn advance(&mut self, sink: &mut impl SegmentSink, max_segments: u64) -> bool {
        let mut source = match self.reader.as_capture_reader() {
            Some(r) => Frames::Capture(r),
            None => Frames::Other(&mut *self.reader),
        };
        let mut sent = 0;
        while !self.done && sent < max_segments && !sink.stopped() {
            let frame = match source.next() {
                Ok(Some(f)) => f,
                Ok(None) => {
                    self.done = true;
                    break;
                }
                Err(e) => {
                    self.error = Some(e);
                    self.done = true;
                    break;
                }
            };
            if place_frame_in(&mut self.table, &mut self.stats, &frame, &mut self.seg, sink) {
                sent += 1;
            }
            sink.tick(&self.table, frame.ts_ns);
        }
        !self.done
    }

    pub fn stats(&self) -> &ScanStats {
        &self.stats
    }

    /// The flow table so far (for callers that finalise flows before the end).
    pub fn table(&self) -> &FlowTable {
        &self.table
    }

    pub fn finish(mut self) -> Scan {
        self.stats.input_bytes = self.reader.input_bytes_read();
        self.stats.format = self.reader.format_name();
        Scan { flows: self.table.into_flows(), stats: self.stats, error: self.error }
    }
}

/// Where a scan reads its frames: a capture reader directly (its usual record read
/// inline), any other source through its trait.
enum Frames<'a> {
    Capture(&'a mut CaptureReader),
    Other(&'a mut dyn FrameSource),
}

impl Frames<'_> {
    #[inline(always)]
    fn next(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        match self {
            Frames::Capture(r) => r.next_frame_inline(),
            Frames::Other(s) => s.next_frame(),
        }
    }
}

/// Counts, decodes and places one frame, handing a TCP segment to `sink`: the step
/// `Scanner::advance` repeats, for callers with their own frame loop (live capture).
/// Returns true when a segment went to the sink.
#[inline]
pub fn place_frame(table: &mut FlowTable, stats: &mut ScanStats, frame: &Frame<'_>, sink: &mut impl SegmentSink) -> bool {
    place_frame_in(table, stats, frame, &mut TcpSegment::default(), sink)
}

/// [`place_frame`] decoding into `seg`, a buffer the caller keeps from frame to frame (the
/// segment is written once, in place, and never moved).
#[inline]
pub fn place_frame_in<S: SegmentSink>(table: &mut FlowTable, stats: &mut ScanStats, frame: &Frame<'_>, seg: &mut TcpSegment, sink: &mut S) -> bool {
    stats.frames += 1;
    // One call of `place_tcp` for both decoders, so it is inlined once (two calls kept it
    // out of line in the flows scan).
    let tcp = (!S::READS_SEGMENTS && decode::lean::flow_fields(frame.linktype, frame.data, frame.origlen, seg))
        || match decode::decode_into(frame.linktype, frame.data, frame.origlen, seg) {
            Ok(()) => true,
            Err((layer, reason)) => {
                stats.count_stop(frame.number, layer, reason);
                false
            }
        };
    tcp && place_tcp(table, stats, frame, seg, sink)
}

/// `place_frame` for a frame decoded elsewhere (on another thread): `frame.data` is unused.
#[inline]
pub fn place_decoded(table: &mut FlowTable, stats: &mut ScanStats, frame: &Frame<'_>, decoded: Decoded, sink: &mut impl SegmentSink) -> bool {
    stats.frames += 1;
    match decoded {
        Decoded::Tcp(seg) => place_tcp(table, stats, frame, &seg, sink),
        Decoded::Other { layer, reason } => {
            stats.count_stop(frame.number, layer, reason);
            false
        }
    }
}

/// The TCP half of `place_decoded`, for a segment that stays where it is: places it (or,
/// quoted in an ICMP error, finds its flow) and hands it to `sink`. `stats.frames` is the
/// caller's to count.
#[inline]
pub fn place_tcp(table: &mut FlowTable, stats: &mut ScanStats, frame: &Frame<'_>, seg: &TcpSegment, sink: &mut impl SegmentSink) -> bool {
    if seg.in_icmp_error {
        stats.icmp_quoted += 1;
        table.place_quoted(seg, frame.number, frame.ts_ns);
        return false;
    }
    stats.tcp_segments += 1;
    let place = table.place(seg, frame.number, frame.ts_ns, frame.origlen, true);
    sink.segment(frame, seg, place);
    true
}

/// Reads the whole capture once.
pub fn scan(reader: impl FrameSource + 'static, sink: &mut impl SegmentSink) -> Scan {
    let mut scanner = Scanner::new(reader);
    while scanner.advance(sink, u64::MAX) && !sink.stopped() {}
    scanner.finish()
}
