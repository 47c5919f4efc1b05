//! The analysis on several cores, with flows finalised when they go idle.
//!
//! A plain pcap file is read in byte ranges by every thread ([`run_file`], `ranges.rs`);
//! everything else takes the path below.
//!
//! One thread reads, decodes and places every frame (③ flow numbering is order-dependent,
//! so it stays sequential and cheap); it ships each placed segment — what the analysis
//! reads of the decoded [`TcpSegment`] plus frame number and time, never the frame bytes
//! (see `shipped.rs`) — in batches over a bounded channel to worker `flow % jobs`. Each
//! worker owns the [`FlowState`]s of its flows and judges a flow when the reader tells it
//! the flow is finished. Per flow, segments arrive in capture order, so every flow's
//! analysis is the one the single-thread [`Analyzer`](crate::analyse::Analyzer) computes:
//! results do not depend on `jobs`.
//!
//! Memory. Each channel holds at most [`QUEUE_BATCHES`] batches of [`BATCH`] segments, so
//! in-flight data is bounded by `jobs × QUEUE_BATCHES × BATCH × size_of::<Msg>()` (64 bytes;
//! SACK blocks add at most 32 bytes a segment). A flow idle for `idle_timeout` of capture
//! time, or closed (RST, or FIN both ways) and idle for `close_grace`, is judged and its
//! state dropped: analysis state is proportional to the flows active at one time. What
//! stays for every flow ever seen is the numbering record (key, base sequence numbers, the
//! flows-table row) — Wireshark keeps the same, and it is what makes a later segment with
//! the same 4-tuple join the same `tcp.stream` (or a new one under the port-reuse rule)
//! exactly as without eviction — and an empty 8-byte slot in its worker's state index.
//! Such a segment restarts the flow's analysis (an *episode*); the flow keeps the verdict
//! of its largest episode.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;


use crate::analyse::verdict::{judge, FlowVerdict, JudgeOptions};
use crate::analyse::{carried_nothing, finalisable, Verdicts, CLOSE_GRACE_NS};
use crate::analyse::{FlowState, PacketNotes};
use crate::bpf::FrameFilter;
use crate::decode::{self, Decoded, TcpSegment};
use crate::flow::{FlowSummary, FlowTable, Placement};
use crate::ingest::{Frame, FrameSource, IngestError};
use crate::pipeline::{place_decoded, place_frame_in, Scan, ScanStats, SegmentSink};

mod owners;
mod ranges;
mod shipped;
mod tally;
pub use ranges::{run_file, run_file_in};
use shipped::Shipped;
use tally::Tally;

/// Segments per batch sent to a worker.
pub const BATCH: usize = 1024;
/// Batches a worker's channel holds before the reader waits.
pub const QUEUE_BATCHES: usize = 16;
const SEC: i64 = 1_000_000_000;

#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Analysis threads; 1 analyses on the reading thread.
    pub jobs: usize,
    /// Finalise a flow after this much capture time without a segment; `None` never.
    pub idle_timeout_ns: Option<i64>,
    /// Finalise a closed flow (RST, or FIN in both directions) after this much idle time.
    pub close_grace_ns: i64,
    /// Vantage override and target rate, for every verdict.
    pub judge: JudgeOptions,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { jobs: 1, idle_timeout_ns: None, close_grace_ns: CLOSE_GRACE_NS, judge: JudgeOptions::default() }
    }
}

/// What the engine itself did, for the memory bound and the docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Most flows holding analysis state at once.
    pub peak_active: usize,
    /// Flows finalised before the end of the input.
    pub evicted: u64,
    /// Segments that arrived for a flow already finalised (they start a new episode).
    pub resumed: u64,
    /// Frames the capture filter rejected.
    pub filtered_out: u64,
}

enum Msg {
    Seg(Shipped),
    /// The flow is finished (for now): judge it against this summary, drop its state.
    Final(Box<FlowSummary>),
}

/// Messages for one worker, and the SACK blocks their segments refer to.
struct Batch {
    msgs: Vec<Msg>,
    sacks: Vec<(u32, u32)>,
}

impl Batch {
    fn with_capacity() -> Batch {
        Batch { msgs: Vec::with_capacity(BATCH), sacks: Vec::new() }
    }

    fn clear(&mut self) {
        self.msgs.clear();
        self.sacks.clear();
    }
}

/// The analysis of a set of flows: one per worker thread, or inline.
struct Worker {
    /// By stream ÷ `stride` (a worker is given every `stride`-th stream), so a segment
    /// finds its state without hashing. Boxed: a slot holds a pointer, not the 3.5 KB state.
    states: Vec<Option<Box<FlowState>>>,
    stride: u32,
    judge: JudgeOptions,
    /// Notes of the segment being analysed (nobody reads them here): one buffer, written
    /// in place.
    notes: PacketNotes,
}

impl Worker {
    /// The worker for streams `s` with `s % stride` its own.
    fn new(stride: usize, judge: JudgeOptions) -> Worker {
        Worker { states: Vec::new(), stride: stride as u32, judge, notes: PacketNotes::default() }
    }

    #[inline]
    fn slot(states: &mut Vec<Option<Box<FlowState>>>, stride: u32, flow: u32) -> &mut Option<Box<FlowState>> {
        // One worker (stride 1), the single-thread case: no division on the way to the state.
        let i = if stride == 1 { flow } else { flow / stride } as usize;
        if i >= states.len() {
            states.resize_with(i + 1, || None);
        }
        &mut states[i]
    }

    fn get(&self, flow: u32) -> Option<&FlowState> {
        self.states.get((flow / self.stride) as usize)?.as_deref()
    }

    /// Same call as `Analyzer::segment`.
    #[inline]
    fn segment(&mut self, flow: u32, seg: &TcpSegment, dir: u8, frame: u64, ts_ns: i64) {
        let st = Self::slot(&mut self.states, self.stride, flow).get_or_insert_with(Box::default);
        st.on_segment_state(seg, dir as usize, frame, ts_ns, &mut self.notes);
    }

    fn finish(&mut self, sum: &FlowSummary, out: &mut impl FnMut(u32, FlowVerdict)) {
        let st = Self::slot(&mut self.states, self.stride, sum.stream).take().unwrap_or_default();
        out(sum.stream, judge(&st, sum, self.judge));
    }

    /// A batch, read in place (moving messages out would cost more than the analysis of
    /// a small segment).
    fn handle(&mut self, b: &Batch, out: &mut impl FnMut(u32, FlowVerdict)) {
        for m in &b.msgs {
            match m {
                Msg::Seg(s) => self.segment(s.flow, &s.unpack(&b.sacks), s.dir, s.frame, s.ts_ns),
                Msg::Final(sum) => self.finish(sum, out),
            }
        }
    }
}

enum Lanes {
    Inline { worker: Worker, done: Vec<(u32, FlowVerdict)> },
    Threads {
        txs: Vec<SyncSender<Batch>>,
        bufs: Vec<Batch>,
        /// Emptied batch vectors coming back, so batches are not reallocated (and freed
        /// on another thread) each time.
        spare: Receiver<Batch>,
        handles: Vec<JoinHandle<()>>,
        results: Receiver<(u32, FlowVerdict)>,
    },
}

impl Lanes {
    /// `threads` analysis threads beside the reading thread; 0 = analyse inline.
    fn new(threads: usize, judge: JudgeOptions) -> Lanes {
        let jobs = threads;
        if jobs == 0 {
            return Lanes::Inline { worker: Worker::new(1, judge), done: Vec::new() };
        }
        let (rtx, results) = channel::<(u32, FlowVerdict)>();
        let (spare_tx, spare) = channel::<Batch>();
        let mut txs = Vec::new();
        let mut handles = Vec::new();
        for i in 0..jobs {
            let (tx, rx) = sync_channel::<Batch>(QUEUE_BATCHES);
            let rtx: Sender<(u32, FlowVerdict)> = rtx.clone();
            let spare_tx = spare_tx.clone();
            let h = std::thread::Builder::new()
                .name(format!("tcpdiag-analyse-{i}"))
                .spawn(move || {
                    let mut w = Worker::new(jobs, judge);
                    let mut send = |s: u32, v: FlowVerdict| {
                        let _ = rtx.send((s, v));
                    };
                    for mut batch in rx {
                        w.handle(&batch, &mut send);
                        batch.clear();
                        let _ = spare_tx.send(batch);
                    }
                })
                .expect("spawn analysis thread");
            txs.push(tx);
            handles.push(h);
        }
        Lanes::Threads { bufs: (0..jobs).map(|_| Batch::with_capacity()).collect(), txs, spare, handles, results }
    }

    /// Analyses a segment inline, or packs it for its flow's worker.
    #[inline]
    fn segment(&mut self, flow: u32, seg: &TcpSegment, dir: u8, frame: u64, ts_ns: i64) {
        match self {
            Lanes::Inline { worker, .. } => worker.segment(flow, seg, dir, frame, ts_ns),
            Lanes::Threads { bufs, .. } => {
                let n = bufs.len();
                let b = &mut bufs[flow as usize % n];
                let m = Shipped::pack(frame, ts_ns, flow, dir, seg, &mut b.sacks);
                b.msgs.push(Msg::Seg(m));
                self.ship_if_full(flow);
            }
        }
    }

    /// Judges a finished flow inline, or tells its worker to.
    fn finish_flow(&mut self, sum: Box<FlowSummary>) {
        let flow = sum.stream;
        match self {
            Lanes::Inline { worker, done } => worker.finish(&sum, &mut |s, v| done.push((s, v))),
            Lanes::Threads { bufs, .. } => {
                let n = bufs.len();
                bufs[flow as usize % n].msgs.push(Msg::Final(sum));
                self.ship_if_full(flow);
            }
        }
    }

    #[inline]
    fn ship_if_full(&mut self, flow: u32) {
        let Lanes::Threads { txs, bufs, spare, .. } = self else { return };
        let i = flow as usize % txs.len();
        if bufs[i].msgs.len() >= BATCH {
            let next = spare.try_recv().unwrap_or_else(|_| Batch::with_capacity());
            let full = std::mem::replace(&mut bufs[i], next);
            // A worker only goes away by panicking; the join below reports it.
            let _ = txs[i].send(full);
        }
    }

    /// Verdicts finished so far.
    fn drain(&mut self, out: &mut impl FnMut(u32, FlowVerdict)) {
        match self {
            Lanes::Inline { done, .. } => done.drain(..).for_each(|(s, v)| out(s, v)),
            Lanes::Threads { results, .. } => results.try_iter().for_each(|(s, v)| out(s, v)),
        }
    }

    fn finish(self, out: &mut impl FnMut(u32, FlowVerdict)) {
        match self {
            Lanes::Inline { done, .. } => done.into_iter().for_each(|(s, v)| out(s, v)),
            Lanes::Threads { txs, bufs, handles, results, .. } => {
                for (tx, buf) in txs.iter().zip(bufs) {
                    if !buf.msgs.is_empty() {
                        let _ = tx.send(buf);
                    }
                }
                drop(txs);
                for h in handles {
                    if let Err(p) = h.join() {
                        std::panic::resume_unwind(p);
                    }
                }
                results.try_iter().for_each(|(s, v)| out(s, v));
            }
        }
    }
}

/// Flow life as the reader sees it.
const NEVER: u8 = 0;
const ACTIVE: u8 = 1;
const FINALISED: u8 = 2;

/// The `SegmentSink` on the reading thread: tracks which flows are active and ships
/// segments to the lanes.
struct Dispatch {
    lanes: Lanes,
    life: Vec<u8>,
    active: Vec<u32>,
    stats: EngineStats,
}

impl SegmentSink for Dispatch {
    #[inline]
    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        let i = place.flow as usize;
        if i >= self.life.len() {
            self.life.resize(i + 1, NEVER);
        }
        if self.life[i] != ACTIVE {
            if self.life[i] == FINALISED {
                self.stats.resumed += 1;
            }
            self.life[i] = ACTIVE;
            self.active.push(place.flow);
            self.stats.peak_active = self.stats.peak_active.max(self.active.len());
        }
        self.lanes.segment(place.flow, seg, place.dir.index() as u8, frame.number, frame.ts_ns);
    }
}

/// Where engines that split the flows meet at each sweep, and what one does while it waits.
struct Rendezvous {
    tally: std::sync::Arc<Tally>,
    /// Sweeps this engine has done.
    round: u64,
    /// Work to do while waiting; false when there is none.
    meanwhile: Box<dyn FnMut() -> bool + Send>,
}

/// The engine: feed it frames, then `finish`.
pub struct Engine {
    opts: EngineOptions,
    table: FlowTable,
    /// The frame being placed, decoded in place.
    seg: TcpSegment,
    stats: ScanStats,
    dispatch: Dispatch,
    filter: Option<FrameFilter>,
    /// Latest capture time seen (timestamps may step back; eviction uses the latest).
    now_ns: i64,
    next_sweep_ns: Option<i64>,
    /// Verdicts by stream (index), and the streams judged more than once.
    verdicts: Verdicts,
    /// With the flows split over several engines (`ranges.rs`): where the sweeps add up
    /// the flows active in all of them.
    tally: Option<Rendezvous>,
}

impl Engine {
    pub fn new(opts: EngineOptions, filter: Option<FrameFilter>) -> Engine {
        // Below PIPELINE_FROM_JOBS the reading thread decodes and places frames itself and
        // jobs − 1 threads analyse: on few cores, decoding (~20 ns a frame) is not worth a
        // hand-off; analysis is. From there on, decoding gets threads of its own too.
        let threads = match opts.jobs {
            0 | 1 => 0,
            j if j < PIPELINE_FROM_JOBS => j - 1,
            j => j,
        };
        let lanes = Lanes::new(threads, opts.judge);
        Engine {
            opts,
            table: FlowTable::new(),
            seg: TcpSegment::default(),
            stats: ScanStats::default(),
            dispatch: Dispatch { lanes, life: Vec::new(), active: Vec::new(), stats: EngineStats::default() },
            filter,
            now_ns: i64::MIN,
            next_sweep_ns: None,
            verdicts: Verdicts::default(),
            tally: None,
        }
    }

    /// Filters, decodes, places and ships one frame.
    #[inline]
    pub fn frame(&mut self, frame: &Frame<'_>) {
        if !self.passes(frame) {
            return;
        }
        place_frame_in(&mut self.table, &mut self.stats, frame, &mut self.seg, &mut self.dispatch);
        self.advance_clock(frame.ts_ns);
    }

    /// The capture filter's verdict (counted when it rejects). Without a filter, the
    /// usual case, one inlined test: the filter's call kept out of line (its register
    /// saves cost more than the test).
    #[inline(always)]
    fn passes(&mut self, frame: &Frame<'_>) -> bool {
        self.filter.is_none() || self.passes_filter(frame)
    }

    #[inline(never)]
    fn passes_filter(&mut self, frame: &Frame<'_>) -> bool {
        let pass = self.filter.as_mut().is_none_or(|f| f.matches(frame));
        if !pass {
            self.dispatch.stats.filtered_out += 1;
        }
        pass
    }

    /// Places and ships a frame that passed the filter and was decoded elsewhere.
    #[inline]
    fn decoded(&mut self, frame: &Frame<'_>, d: Decoded) {
        place_decoded(&mut self.table, &mut self.stats, frame, d, &mut self.dispatch);
        self.advance_clock(frame.ts_ns);
    }

    /// Capture time moves to a frame's time (sweeping when due); every frame that passed
    /// the filter moves it, after its segment was placed.
    #[inline]
    fn advance_clock(&mut self, ts_ns: i64) {
        if ts_ns > self.now_ns {
            self.now_ns = ts_ns;
            match self.next_sweep_ns {
                None => self.next_sweep_ns = Some(self.now_ns.saturating_add(self.sweep_interval())),
                Some(t) if self.now_ns >= t => self.sweep(),
                _ => {}
            }
        }
    }

    fn sweep_interval(&self) -> i64 {
        let shortest = self.opts.idle_timeout_ns.unwrap_or(i64::MAX).min(self.opts.close_grace_ns);
        (shortest / 4).max(SEC / 10)
    }

    /// Finalises flows that closed, or were idle past the timeout.
    fn sweep(&mut self) {
        self.next_sweep_ns = Some(self.now_ns.saturating_add(self.sweep_interval()));
        let (grace, timeout) = (self.opts.close_grace_ns, self.opts.idle_timeout_ns);
        let now = self.now_ns;
        let flows = self.table.flows();
        let d = &mut self.dispatch;
        let open = match &mut self.tally {
            Some(r) => {
                // The other engines' flows count only where a flow carried nothing.
                let wait = d.active.iter().any(|&f| carried_nothing(&flows[f as usize]));
                r.round += 1;
                r.tally.add_up(r.round - 1, d.active.len(), wait, &mut r.meanwhile)
            }
            None => d.active.len(),
        };
        let mut keep = Vec::with_capacity(open);
        for &f in &d.active {
            let s = &flows[f as usize];
            if finalisable(s, now, open, grace, timeout) {
                d.life[f as usize] = FINALISED;
                d.stats.evicted += 1;
                d.lanes.finish_flow(Box::new(s.clone()));
            } else {
                keep.push(f);
            }
        }
        d.active = keep;
        let verdicts = &mut self.verdicts;
        d.lanes.drain(&mut |s, v| verdicts.keep_largest(s, v));
    }

    /// The flows table so far.
    pub fn table(&self) -> &FlowTable {
        &self.table
    }

    pub fn scan_stats(&self) -> &ScanStats {
        &self.stats
    }

    pub fn engine_stats(&self) -> &EngineStats {
        &self.dispatch.stats
    }

    /// The verdict a flow would get if the input ended now (inline engine only: with
    /// worker threads the state lives elsewhere and `None` comes back).
    pub fn judge_now(&self, stream: u32) -> Option<FlowVerdict> {
        let Lanes::Inline { worker, .. } = &self.dispatch.lanes else { return None };
        let sum = self.table.flows().get(stream as usize)?;
        match worker.get(stream) {
            Some(st) => Some(judge(st, sum, self.opts.judge)),
            None => self.verdicts.get(stream).cloned(),
        }
    }

    /// Flows holding analysis state now.
    pub fn active(&self) -> &[u32] {
        &self.dispatch.active
    }

    /// Judges every flow still active and returns the flows table with one verdict per
    /// flow (in stream order).
    pub fn finish(mut self, input_bytes: u64, error: Option<IngestError>) -> Outcome {
        let mut active = std::mem::take(&mut self.dispatch.active);
        active.sort_unstable();
        for f in active {
            let s = self.table.flows()[f as usize].clone();
            self.dispatch.lanes.finish_flow(Box::new(s));
        }
        let verdicts = &mut self.verdicts;
        self.dispatch.lanes.finish(&mut |s, v| verdicts.keep_largest(s, v));
        self.stats.input_bytes = input_bytes;
        let flows = self.table.into_flows();
        let mut episodes: Vec<(u32, u32)> = self.verdicts.episodes.drain().collect();
        let verdicts = std::mem::take(&mut self.verdicts).into_vec(&flows, self.opts.judge);
        episodes.sort_unstable();
        Outcome { scan: Scan { flows, stats: self.stats, error }, verdicts, episodes, engine: self.dispatch.stats }
    }
}

/// The result of a run: the flows table, one verdict per flow (index = stream).
pub struct Outcome {
    pub scan: Scan,
    pub verdicts: Vec<FlowVerdict>,
    /// Streams analysed in more than one episode (resumed after eviction), with the count.
    pub episodes: Vec<(u32, u32)>,
    pub engine: EngineStats,
}

/// Reads a whole source through the engine: `jobs` threads in all (the reader and
/// jobs − 1 analysis threads); from [`PIPELINE_FROM_JOBS`] on, decoding is spread too.
pub fn run(mut source: impl FrameSource, opts: EngineOptions, filter: Option<FrameFilter>) -> Outcome {
    run_on(&mut source, opts, filter)
}

/// [`run`] on a borrowed source (to ask it afterwards, e.g. which merged input failed).
pub fn run_on<S: FrameSource>(source: &mut S, opts: EngineOptions, filter: Option<FrameFilter>) -> Outcome {
    if opts.jobs >= PIPELINE_FROM_JOBS {
        return run_pipelined(source, opts, filter);
    }
    let mut engine = Engine::new(opts, filter);
    let error = loop {
        match source.next_frame() {
            Ok(Some(f)) => engine.frame(&f),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    let mut outcome = engine.finish(source.input_bytes_read(), error);
    outcome.scan.stats.format = source.format_name();
    outcome
}

/// From this many jobs, decoding runs on threads of its own ([`run_pipelined`]).
const PIPELINE_FROM_JOBS: usize = 4;

/// Captured bytes per decode batch at most (with [`BATCH`] frames at most).
const DECODE_BATCH_BYTES: usize = 1 << 20;

/// Frames on their way to a decoder: their captured bytes in one arena.
#[derive(Default)]
struct RawBatch {
    /// (frame number, time, original length, link type, end of its bytes in `bytes`).
    metas: Vec<(u64, i64, u32, u32, usize)>,
    bytes: Vec<u8>,
}

/// Decoded frames, in the batch's order.
struct DecodedBatch {
    metas: Vec<(u64, i64, u32, u32, usize)>,
    decoded: Vec<Decoded>,
    /// The batch's byte arena, emptied, for the reader to reuse.
    bytes: Vec<u8>,
}

/// The engine with decoding spread over `jobs` threads: the reading thread reads records
/// (and applies the filter), `jobs` decoder threads decode batches of them, and the reading
/// thread places the decoded frames in batch order — so numbering sees frames in capture
/// order — and ships the segments to the analysis lanes. At most `2 × jobs` batches are
/// being decoded at once (bounded memory: ≤ 1 MiB of captured bytes each).
pub fn run_pipelined<S: FrameSource>(source: &mut S, opts: EngineOptions, filter: Option<FrameFilter>) -> Outcome {
    let jobs = opts.jobs.max(1);
    let window = 2 * jobs;
    let mut engine = Engine::new(opts, filter);
    let mut to_dec = Vec::new();
    let mut from_dec = Vec::new();
    let mut handles = Vec::new();
    for i in 0..jobs {
        let (tx, rx) = sync_channel::<RawBatch>(window);
        let (otx, orx) = channel::<DecodedBatch>();
        handles.push(
            std::thread::Builder::new()
                .name(format!("tcpdiag-decode-{i}"))
                .spawn(move || {
                    for mut b in rx {
                        let mut start = 0;
                        let decoded = b
                            .metas
                            .iter()
                            .map(|&(_, _, origlen, lt, end)| {
                                let d = decode::decode(lt, &b.bytes[start..end], origlen);
                                start = end;
                                d
                            })
                            .collect();
                        b.bytes.clear();
                        if otx.send(DecodedBatch { metas: b.metas, decoded, bytes: b.bytes }).is_err() {
                            break;
                        }
                    }
                })
                .expect("spawn decode thread"),
        );
        to_dec.push(tx);
        from_dec.push(orx);
    }
    let mut inflight = std::collections::VecDeque::new();
    let mut next = 0usize;
    let fresh = || RawBatch { metas: Vec::with_capacity(BATCH), bytes: Vec::with_capacity(DECODE_BATCH_BYTES / 4) };
    let mut batch = fresh();
    let mut spare_bytes: Vec<Vec<u8>> = Vec::new();
    let place = |engine: &mut Engine, spare: &mut Vec<Vec<u8>>, db: DecodedBatch| {
        spare.push(db.bytes);
        let mut start = 0;
        for (&(number, ts_ns, origlen, linktype, end), d) in db.metas.iter().zip(db.decoded) {
            let frame = Frame {
                number,
                ts_ns,
                caplen: (end - start) as u32,
                origlen,
                interface: 0,
                linktype,
                data: &[],
                options: None,
            };
            start = end;
            engine.decoded(&frame, d);
        }
    };
    let error = loop {
        let step = match source.next_frame() {
            Ok(Some(f)) => {
                if engine.passes(&f) {
                    batch.bytes.extend_from_slice(f.data);
                    batch.metas.push((f.number, f.ts_ns, f.origlen, f.linktype, batch.bytes.len()));
                }
                None
            }
            Ok(None) => Some(None),
            Err(e) => Some(Some(e)),
        };
        let end = step.is_some();
        if batch.metas.len() >= BATCH || batch.bytes.len() >= DECODE_BATCH_BYTES || (end && !batch.metas.is_empty()) {
            let next_batch = match spare_bytes.pop() {
                Some(bytes) => RawBatch { metas: Vec::with_capacity(BATCH), bytes },
                None => fresh(),
            };
            let full = std::mem::replace(&mut batch, next_batch);
            let _ = to_dec[next].send(full);
            inflight.push_back(next);
            next = (next + 1) % jobs;
            while inflight.len() >= window || (end && !inflight.is_empty()) {
                let i = inflight.pop_front().unwrap();
                match from_dec[i].recv() {
                    Ok(db) => place(&mut engine, &mut spare_bytes, db),
                    Err(_) => break,
                }
            }
        }
        if let Some(e) = step {
            break e;
        }
    };
    drop(to_dec);
    for h in handles {
        if let Err(p) = h.join() {
            std::panic::resume_unwind(p);
        }
    }
    let mut outcome = engine.finish(source.input_bytes_read(), error);
    outcome.scan.stats.format = source.format_name();
    outcome
}
