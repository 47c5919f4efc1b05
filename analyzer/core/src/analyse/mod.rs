//! ④ analyse: per packet, rebuild each direction's windows, flight, cwnd estimate,
//! losses, D-SACKs and reordering ([`PacketNotes`]); per flow, the time in each limit
//! state and the verdict ([`verdict::FlowVerdict`]).

pub mod catalogue;
pub mod ceiling;
pub mod finding;
pub mod cwnd;
pub mod dsack;
pub mod flow_state;
pub mod limit;
pub mod notes;
pub mod rtt;
pub mod scoreboard;
pub mod units;
pub mod sender;
pub mod vantage;
pub mod verdict;
pub mod window;

pub use flow_state::FlowState;
pub use notes::{CwndConfidence, Evidence, LimitState, PacketNotes, Reorder, RetransKind};

use crate::decode::TcpSegment;
use crate::flow::Placement;
use crate::ingest::Frame;
use crate::pipeline::SegmentSink;

/// Receives each segment with its analysis.
pub trait NotesSink {
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, notes: &PacketNotes);
    /// True once the sink can take no more (its output closed).
    fn stopped(&self) -> bool {
        false
    }
}

/// Keeps nothing per packet (flow verdicts only).
pub struct NoNotes;
impl NotesSink for NoNotes {
    #[inline]
    fn packet(&mut self, _: &Frame<'_>, _: &TcpSegment, _: Placement, _: &PacketNotes) {}
}

/// Two sinks fed the same notes (e.g. the analysis columns and the events).
impl<A: NotesSink, B: NotesSink> NotesSink for (A, B) {
    #[inline]
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, notes: &PacketNotes) {
        self.0.packet(frame, seg, place, notes);
        self.1.packet(frame, seg, place, notes);
    }
    fn stopped(&self) -> bool {
        self.0.stopped() || self.1.stopped()
    }
}

/// The analysis sink: flow states indexed by flow number, notes handed to `out`.
pub struct Analyzer<S: NotesSink> {
    pub flows: Vec<FlowState>,
    pub out: S,
}

impl<S: NotesSink> Analyzer<S> {
    pub fn new(out: S) -> Self {
        Analyzer { flows: Vec::new(), out }
    }
}

impl<S: NotesSink> SegmentSink for Analyzer<S> {
    #[inline]
    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        let i = place.flow as usize;
        if i >= self.flows.len() {
            self.flows.resize_with(i + 1, FlowState::default);
        }
        let notes = self.flows[i].on_segment(seg, place.dir.index(), frame.number, frame.ts_ns);
        self.out.packet(frame, seg, place, &notes);
    }

    fn stopped(&self) -> bool {
        self.out.stopped()
    }
}
