//! ④ analyse: per packet, rebuild each direction's windows, flight, cwnd estimate,
//! losses, D-SACKs and reordering ([`PacketNotes`]); per flow, the time in each limit
//! state and the verdict ([`verdict::FlowVerdict`]), given once the flow has closed.

pub mod catalogue;
pub mod ceiling;
pub mod congestion;
pub mod finding;
pub mod host_queue;
pub mod hystart;
pub mod ip_ids;
pub mod cwnd;
pub mod delivery;
pub mod dsack;
pub mod flow_state;
pub mod limit;
pub mod notes;
pub mod pacing;
pub mod reo_window;
pub mod ring;
pub mod rtt;
pub mod scoreboard;
pub mod units;
pub mod sender;
pub mod startup;
pub mod vantage;
pub mod verdict;
pub mod window;

#[cfg(test)]
mod tests;

pub use flow_state::FlowState;
pub use notes::{CwndConfidence, Evidence, LimitState, PacketNotes, Reorder, RetransKind};

use ahash::AHashMap;

use crate::decode::TcpSegment;
use crate::flow::{FlowSummary, FlowTable, Placement};
use crate::ingest::Frame;
use crate::pipeline::SegmentSink;
use verdict::{judge, FlowVerdict, JudgeOptions};

/// Receives each segment with its analysis.
pub trait NotesSink {
    /// False when the sink never reads the notes: the analysis then moves the state only.
    const WANTS_NOTES: bool = true;
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, notes: &PacketNotes);
    /// True once the sink can take no more (its output closed).
    fn stopped(&self) -> bool {
        false
    }
}

/// Keeps nothing per packet (flow verdicts only).
pub struct NoNotes;
impl NotesSink for NoNotes {
    const WANTS_NOTES: bool = false;
    #[inline]
    fn packet(&mut self, _: &Frame<'_>, _: &TcpSegment, _: Placement, _: &PacketNotes) {}
}

/// Two sinks fed the same notes (e.g. the analysis columns and the events).
impl<A: NotesSink, B: NotesSink> NotesSink for (A, B) {
    const WANTS_NOTES: bool = A::WANTS_NOTES || B::WANTS_NOTES;
    #[inline]
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, notes: &PacketNotes) {
        self.0.packet(frame, seg, place, notes);
        self.1.packet(frame, seg, place, notes);
    }
    fn stopped(&self) -> bool {
        self.0.stopped() || self.1.stopped()
    }
}

/// Flows holding state beyond which flows that never carried data are judged early: a
/// port scan or a SYN flood is many such flows, an ordinary capture a few.
pub const MANY_FLOWS: usize = 10_000;
/// Capture time after which a flow reset before it carried data (nor a FIN) is judged
/// early, when [`MANY_FLOWS`] hold state.
pub const CLOSE_GRACE_NS: i64 = 1_000_000_000;
/// Capture time after which an unanswered or abandoned flow that never carried data is
/// judged early, when [`MANY_FLOWS`] hold state (SYN retransmissions back off to about a
/// minute).
pub const NO_DATA_IDLE_NS: i64 = 120_000_000_000;

/// No sequence space beyond the SYN was ever used: nothing that could be retransmitted.
/// Only such flows are judged early because many flows are open ([`finalisable`]).
#[inline]
pub fn carried_nothing(s: &FlowSummary) -> bool {
    s.sides.iter().all(|x| x.payload_bytes == 0 && !x.fin_seen)
}

/// True when a flow can be judged now, `open` flows holding state. A flow is judged whole
/// (at the end of the capture) unless:
/// - the user set an idle timeout and the flow was quiet that long (bounded memory on long
///   captures, at the price of splitting flows that pause);
/// - it never carried data nor a FIN and [`MANY_FLOWS`] flows hold state: then once reset
///   and quiet for `close_grace_ns`, or quiet for [`NO_DATA_IDLE_NS`]. A SYN retried after
///   that starts a new episode (a scan's memory follows its open flows, not every
///   connection attempt ever seen).
/// Segments after a flow's FIN or a data flow's RST (a FIN retransmitted after an RTO, a
/// late duplicate) are so always analysed against the flow's state, as Wireshark does.
/// One rule for the single-thread analysis and the multi-core engine.
pub fn finalisable(s: &FlowSummary, now: i64, open: usize, close_grace_ns: i64, idle_timeout_ns: Option<i64>) -> bool {
    let idle = now.saturating_sub(s.last_ts_ns);
    if idle_timeout_ns.is_some_and(|t| idle >= t) {
        return true;
    }
    if open <= MANY_FLOWS {
        return false;
    }
    let no_data = carried_nothing(s);
    let reset = s.sides.iter().any(|x| x.rst_seen);
    no_data && ((reset && idle >= close_grace_ns) || idle >= NO_DATA_IDLE_NS)
}

/// Where judged flows go: kept as verdicts, or rendered into tables as they come
/// (emit::diagnosis). A flow judged more than once (packets came after it was judged
/// closed) keeps the verdict of the episode that carried the most data.
pub trait VerdictStore {
    fn keep(&mut self, stream: u32, v: FlowVerdict);
}

impl VerdictStore for Verdicts {
    fn keep(&mut self, stream: u32, v: FlowVerdict) {
        self.keep_largest(stream, v);
    }
}

/// Verdicts by stream. A flow judged more than once (packets came after it was judged
/// closed) keeps the verdict of the episode that carried the most data.
#[derive(Default)]
pub struct Verdicts {
    by_stream: Vec<Option<FlowVerdict>>,
    /// Streams judged more than once, with the number of episodes.
    pub episodes: AHashMap<u32, u32>,
}

impl Verdicts {
    pub fn keep_largest(&mut self, stream: u32, v: FlowVerdict) {
        let i = stream as usize;
        if i >= self.by_stream.len() {
            self.by_stream.resize_with(i + 1, || None);
        }
        match &mut self.by_stream[i] {
            slot @ None => *slot = Some(v),
            Some(old) => {
                *self.episodes.entry(stream).or_insert(1) += 1;
                if v.data_bytes > old.data_bytes {
                    *old = v;
                }
            }
        }
    }

    pub fn get(&self, stream: u32) -> Option<&FlowVerdict> {
        self.by_stream.get(stream as usize).and_then(|v| v.as_ref())
    }

    /// One verdict per flow, in stream order; a flow never judged (seen only in ICMP
    /// errors) gets the verdict of an empty state.
    pub fn into_vec(mut self, flows: &[FlowSummary], opts: JudgeOptions) -> Vec<FlowVerdict> {
        self.by_stream.resize_with(flows.len(), || None);
        let empty = FlowState::default();
        self.by_stream
            .into_iter()
            .zip(flows)
            .map(|(v, f)| v.unwrap_or_else(|| judge(&empty, f, opts)))
            .collect()
    }
}

/// The single-thread analysis: flow states by stream, notes handed to `out`, each flow
/// judged when [`finalisable`] says so, or at the end.
pub struct Analyzer<S: NotesSink, V: VerdictStore = Verdicts> {
    states: Vec<Option<Box<FlowState>>>,
    /// Streams holding state.
    active: Vec<u32>,
    pub out: S,
    opts: JudgeOptions,
    verdicts: V,
    next_sweep_ns: i64,
    /// The current packet's notes, one buffer for all (written in place, not moved).
    notes: PacketNotes,
}

impl<S: NotesSink> Analyzer<S> {
    pub fn new(out: S, opts: JudgeOptions) -> Self {
        Analyzer::with_store(out, opts, Verdicts::default())
    }

    /// Judges the flows still open and returns every flow's verdict (stream order) and
    /// the sink.
    pub fn finish(self, flows: &[FlowSummary]) -> (Vec<FlowVerdict>, S) {
        let opts = self.opts;
        let (verdicts, out) = self.finish_into(flows);
        (verdicts.into_vec(flows, opts), out)
    }
}

impl<S: NotesSink, V: VerdictStore> Analyzer<S, V> {
    pub fn with_store(out: S, opts: JudgeOptions, verdicts: V) -> Self {
        Analyzer { states: Vec::new(), active: Vec::new(), out, opts, verdicts, next_sweep_ns: i64::MIN, notes: PacketNotes::default() }
    }

    /// The state of a flow still open (for tests and live views).
    pub fn state(&self, stream: u32) -> Option<&FlowState> {
        self.states.get(stream as usize).and_then(|s| s.as_deref())
    }

    /// Judges the flows still open; returns the verdict store and the sink.
    pub fn finish_into(mut self, flows: &[FlowSummary]) -> (V, S) {
        for f in std::mem::take(&mut self.active) {
            if let (Some(st), Some(sum)) = (self.states[f as usize].take(), flows.get(f as usize)) {
                self.verdicts.keep(f, judge(&st, sum, self.opts));
            }
        }
        (self.verdicts, self.out)
    }
}

impl<S: NotesSink, V: VerdictStore> SegmentSink for Analyzer<S, V> {
    #[inline]
    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        let i = place.flow as usize;
        if i >= self.states.len() {
            self.states.resize_with(i + 1, || None);
        }
        let st = match &mut self.states[i] {
            Some(st) => st,
            slot => {
                self.active.push(place.flow);
                slot.insert(Box::default())
            }
        };
        if S::WANTS_NOTES {
            st.on_segment_into(seg, place.dir.index(), frame.number, frame.ts_ns, &mut self.notes);
            self.out.packet(frame, seg, place, &self.notes);
        } else {
            st.on_segment_state(seg, place.dir.index(), frame.number, frame.ts_ns, &mut self.notes);
        }
    }

    /// Every quarter of the grace period of capture time, judges the flows that closed.
    #[inline]
    fn tick(&mut self, table: &FlowTable, now_ns: i64) {
        if now_ns < self.next_sweep_ns {
            return;
        }
        self.next_sweep_ns = now_ns.saturating_add(CLOSE_GRACE_NS / 4);
        let flows = table.flows();
        let open = self.active.len();
        let mut keep = Vec::with_capacity(open);
        for &f in &self.active {
            let sum = &flows[f as usize];
            if finalisable(sum, now_ns, open, CLOSE_GRACE_NS, None) {
                if let Some(st) = self.states[f as usize].take() {
                    self.verdicts.keep(f, judge(&st, sum, self.opts));
                }
            } else {
                keep.push(f);
            }
        }
        self.active = keep;
    }

    fn stopped(&self) -> bool {
        self.out.stopped()
    }
}
