//! `-j N` on a classic pcap file: N engines that each read, decode, place and analyse, so
//! no single reading thread bounds the speed.
//!
//! The file is cut into byte ranges. A range starts at the first record boundary at or
//! after its nominal offset — the first offset where [`SYNC_RECORDS`] record headers in a
//! row look right — and holds the records that start before the next range's nominal
//! offset. The guess is checked when the range before it has been walked: that walk must
//! end exactly where this range starts; if not, the range is decoded again from where it
//! ended. So ranges are exact whatever the file holds.
//!
//! Any engine decodes any range (ranges are claimed in file order, at most [`AHEAD`] per
//! engine ahead of the slowest), sorting each TCP segment to the engine that owns its
//! 4-tuple (`owners.rs`). Every engine then takes every range in file order and places and
//! analyses its own segments: each 4-tuple's segments arrive in capture order, so its
//! numbering (port reuse included) and analysis are those of one thread. Wireshark numbers
//! streams in order of first appearance: at the end, the engines' flows are numbered
//! globally by first frame. A range's first frame number is the count of records before
//! it, known once the earlier ranges have been taken.
//!
//! Eviction: every engine runs the one-thread clock (every record's time, in file order)
//! and sweeps at the same frames; at each sweep they add up their active flows in a
//! [`Tally`], the count [`finalisable`](crate::analyse::finalisable) reads, waiting for
//! each other only where that count decides. Otherwise an engine runs ahead of the
//! slowest by up to [`LEAD`] ranges.
//!
//! A cut or impossible record, or one too large for a range's mapping: the run is
//! abandoned and the caller reads the file the one-reader way, whose errors and partial
//! results are the reference.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use memmap2::MmapOptions;

use super::owners::{OwnerCache, Owners};
use super::{Engine, EngineOptions, Outcome, Rendezvous, Tally};
use crate::analyse::verdict::FlowVerdict;
use crate::bpf::FrameFilter;
use crate::decode::{self, TcpSegment};
use crate::flow::{FlowKey, FlowSummary};
use crate::ingest::pcap::{self, PcapState};
use crate::ingest::source::ByteSource;
use crate::ingest::Frame;
use crate::pipeline::{place_frame_in, Scan, ScanStats};

/// Nominal bytes per range. Each range costs a mapping, a claim and its vectors whatever
/// its size: on a 6.6 M-record bulk capture with two engines, 256 KiB ranges took 1.15× the
/// time of 1 MiB ones (64 KiB: 1.5×); 2–4 MiB gained nothing more and held more memory.
pub const RANGE_BYTES: u64 = 1 << 20;
/// Bytes mapped past a range's nominal end, for its last record; a range whose last record
/// runs further is mapped again with [`MAX_OVERRUN`] (a larger record sends the file to the
/// one-reader path).
const OVERRUN: u64 = 16 << 10;
const MAX_OVERRUN: u64 = (256 << 10) + 64;
/// Record headers in a row that must look right for an offset to be taken as a boundary.
const SYNC_RECORDS: usize = 8;
/// Ranges decoded ahead of the slowest engine, per engine.
const AHEAD: usize = 2;
/// Ranges an engine may take ahead of the slowest: the decoded ranges between them stay
/// in memory (each its mapping and ~0.2 MB of index on bulk captures).
const LEAD: usize = 8;
/// How far (seconds) a record's time may lie from the first record's and still look like a
/// header while resynchronising.
const SYNC_SECONDS: u32 = 1 << 24;

/// A TCP frame and where it is in the range: its engine decodes it again from the
/// range's mapping. A decoded copy (~140 bytes a segment, about the size of the frame's
/// headers) written by one core and read by the other doubled the memory traffic: with two
/// engines on bulk-5m, decoding took 41 % of all CPU time against 18 % for read, decode and
/// placement on one thread.
struct Placed {
    /// Record index within the range.
    at: u32,
    /// Offset of the frame's bytes in the range's mapping.
    pos: u32,
    caplen: u32,
    origlen: u32,
}

/// A range, walked: its records' times and its TCP frames sorted by engine.
struct Range {
    /// Offset of its first record (`u64::MAX`: no boundary found), and after its last.
    start: u64,
    end: u64,
    records: u32,
    /// Each record's time; `i64::MIN` when the filter rejected it (it moves no clock).
    ts: Vec<i64>,
    /// TCP frames, by owning engine.
    segs: Vec<Vec<Placed>>,
    /// The range's bytes (from `start`), for the engines to decode their frames from.
    map: Option<memmap2::Mmap>,
    /// What the other frames were; frame numbers count from 1 within the range.
    other: ScanStats,
    filtered: u64,
    /// A record was cut, impossible or too large: the one-reader path must read the file.
    damaged: bool,
}

impl Range {
    /// The bytes of a frame sorted to an engine.
    fn frame(&self, p: &Placed) -> &[u8] {
        &self.map.as_deref().unwrap_or(&[])[p.pos as usize..(p.pos + p.caplen) as usize]
    }
}

struct Slots {
    next_claim: usize,
    done: BTreeMap<usize, Arc<Range>>,
    /// Ranges each engine has taken.
    taken: Vec<usize>,
    abandoned: bool,
}

struct Shared {
    file: File,
    len: u64,
    st: PcapState,
    linktype: u32,
    data_start: u64,
    first_sec: u32,
    range_bytes: u64,
    ranges: usize,
    engines: usize,
    owners: Owners,
    slots: Mutex<Slots>,
    ready: Condvar,
    /// Ranges every engine is done with, emptied, so their vectors are reused (fresh ones
    /// cost page faults and copies as they grow).
    spare: Mutex<Vec<Range>>,
    tally: Arc<Tally>,
}

/// What one engine hands back.
struct Part {
    outcome: Outcome,
    /// Flows still active at the end (for the peak).
    active: usize,
    /// Non-TCP frames' counts (engine 0 only), frame numbers global.
    other: ScanStats,
    filtered: u64,
}

/// The whole analysis of a classic pcap file with `opts.jobs` engines, or `None` when this
/// path does not apply (one job, not a plain pcap file, `TCPDIAG_NO_MMAP`, a damaged
/// record): then read it with [`run`](super::run). Results equal `run`'s.
///
/// A capture that opens a new flow every few segments (a scan) also goes back: split over
/// engines its flows cost more in allocation than the engines gain (scan-1m, 1M flows,
/// `-j 2`, native module with mimalloc: 8.5 s and 1.95 GB one reader, 8.9–9.3 s and
/// 2.05 GB in ranges; with glibc's allocator 5.7 s against 10.4 s).
pub fn run_file(path: &Path, opts: &EngineOptions, filter: Option<&FrameFilter>) -> Option<Outcome> {
    run_file_gated(path, opts, filter, RANGE_BYTES, true)
}

/// Segments per flow in the first range below which a capture counts as a scan.
const SEGMENTS_PER_FLOW: usize = 32;

/// [`run_file`] with ranges of `range_bytes`, scans included (tests cut small files into
/// many ranges).
pub fn run_file_in(path: &Path, opts: &EngineOptions, filter: Option<&FrameFilter>, range_bytes: u64) -> Option<Outcome> {
    run_file_gated(path, opts, filter, range_bytes, false)
}

fn run_file_gated(path: &Path, opts: &EngineOptions, filter: Option<&FrameFilter>, range_bytes: u64, gate: bool) -> Option<Outcome> {
    if opts.jobs < 2 || std::env::var_os("TCPDIAG_NO_MMAP").is_some() {
        return None;
    }
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let mut head = [0u8; pcap::FILE_HEADER_LEN + 16];
    if !meta.is_file() || file.read_exact_at(&mut head, 0).is_err() {
        return None;
    }
    let magic = pcap::detect([head[0], head[1], head[2], head[3]])?;
    let mut src = ByteSource::new(Box::new(std::io::Cursor::new(head[..pcap::FILE_HEADER_LEN].to_vec())));
    let (st, iface) = pcap::read_header(&mut src, magic).ok()?;
    let data_start = pcap::FILE_HEADER_LEN as u64;
    let first_sec = st.header(&head[pcap::FILE_HEADER_LEN..])[0];
    let len = meta.len();
    let engines = opts.jobs;
    let shared = Arc::new(Shared {
        file,
        len,
        linktype: iface.linktype,
        st,
        data_start,
        first_sec,
        range_bytes,
        ranges: (len - data_start).div_ceil(range_bytes) as usize,
        engines,
        owners: Owners::new(engines),
        slots: Mutex::new(Slots { next_claim: 0, done: BTreeMap::new(), taken: vec![0; engines], abandoned: false }),
        ready: Condvar::new(),
        spare: Mutex::new(Vec::new()),
        tally: Arc::new(Tally::new(engines)),
    });
    if gate && shared.scan_like() {
        return None;
    }
    let filter = filter.cloned().map(|mut f| {
        f.prepare(iface.linktype);
        f
    });
    let handles: Vec<_> = (0..engines)
        .map(|w| {
            let (sh, opts, filter) = (shared.clone(), opts.clone(), filter.clone());
            std::thread::Builder::new()
                .name(format!("tcpdiag-range-{w}"))
                .spawn(move || {
                    let guard = AbandonOnPanic(&sh);
                    let part = engine_loop(&sh, w, opts, Walker::new(filter, sh.engines));
                    std::mem::forget(guard);
                    part
                })
                .expect("spawn engine thread")
        })
        .collect();
    let mut parts = Vec::new();
    for h in handles {
        match h.join() {
            Ok(p) => parts.push(p),
            Err(p) => std::panic::resume_unwind(p),
        }
    }
    let parts: Option<Vec<Part>> = parts.into_iter().collect();
    Some(merge(parts?, &shared))
}

/// An engine that panics releases the others (they would wait for it forever).
struct AbandonOnPanic<'a>(&'a Shared);
impl Drop for AbandonOnPanic<'_> {
    fn drop(&mut self) {
        self.0.abandon();
    }
}

/// What a thread keeps from range to range while it decodes them.
struct Walker {
    filter: Option<FrameFilter>,
    owners: OwnerCache,
}

impl Walker {
    fn new(filter: Option<FrameFilter>, engines: usize) -> Walker {
        Walker { filter, owners: OwnerCache::new(engines) }
    }
}

fn engine_loop(sh: &Arc<Shared>, w: usize, opts: EngineOptions, mut walker: Walker) -> Option<Part> {
    let mut engine = Engine::new(EngineOptions { jobs: 1, ..opts }, None);
    // Waiting for the other engines at a sweep, an engine decodes ranges ahead.
    let (ahead, mut own) = (sh.clone(), Walker::new(walker.filter.clone(), sh.engines));
    engine.tally = Some(Rendezvous { tally: sh.tally.clone(), round: 0, meanwhile: Box::new(move || ahead.claim(&mut own, false)) });
    let mut other = ScanStats::default();
    let (mut filtered, mut base, mut prev_end) = (0, 0u64, sh.data_start);
    let mut seg = TcpSegment::default();
    for k in 0..sh.ranges {
        let r = sh.take(k, prev_end, &mut walker)?;
        if r.damaged {
            sh.abandon();
            return None;
        }
        let mut mine = r.segs[w].iter().peekable();
        for (i, &ts) in r.ts.iter().enumerate() {
            if let Some(p) = mine.next_if(|p| p.at as usize == i) {
                let frame = Frame {
                    number: base + i as u64 + 1,
                    ts_ns: ts,
                    caplen: p.caplen,
                    origlen: p.origlen,
                    interface: 0,
                    linktype: sh.linktype,
                    data: r.frame(p),
                    options: None,
                };
                // Decoded as when it was sorted to this engine, so it decodes again.
                place_frame_in(&mut engine.table, &mut engine.stats, &frame, &mut seg, &mut engine.dispatch);
            }
            if ts != i64::MIN {
                engine.advance_clock(ts);
            }
        }
        if w == 0 {
            add_range(&mut other, &r.other, base);
            filtered += r.filtered;
        }
        base += r.records as u64;
        prev_end = r.end;
        drop(r);
        sh.taken(w, k);
    }
    let active = engine.active().len();
    let outcome = engine.finish(0, None);
    Some(Part { outcome, active, other, filtered })
}

impl Shared {
    /// Range `k`, which must start at `start` (where range `k − 1` ended): decoded by
    /// whoever claimed it, by this engine (claiming ranges in order while waiting), or
    /// again from `start` when its boundary was guessed wrong. `None`: abandoned.
    fn take(&self, k: usize, start: u64, walker: &mut Walker) -> Option<Arc<Range>> {
        let mut s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if s.abandoned {
                return None;
            }
            if k >= s.taken.iter().copied().min().unwrap_or(0) + LEAD {
                s = self.ready.wait(s).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            if let Some(r) = s.done.get(&k) {
                if r.start == start {
                    return Some(r.clone());
                }
                let r = Arc::new(self.decode(k, Some(start), walker));
                s.done.insert(k, r.clone());
                return Some(r);
            }
            let c = s.next_claim;
            if c < self.ranges && c <= k {
                drop(s);
                self.claim(walker, true);
                s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
                continue;
            }
            drop(s);
            if !self.claim(walker, false) {
                s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
                if !s.done.contains_key(&k) && !s.abandoned {
                    s = self.ready.wait(s).unwrap_or_else(|p| p.into_inner());
                }
            } else {
                s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            }
        }
    }

    /// Decodes the next range in file order if any is left and it is not too far ahead of
    /// the slowest engine (`needed`: ahead or not). False when there was none to decode.
    fn claim(&self, walker: &mut Walker, needed: bool) -> bool {
        let mut s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slowest = s.taken.iter().copied().min().unwrap_or(0);
        let c = s.next_claim;
        if s.abandoned || c >= self.ranges || (!needed && c >= slowest + AHEAD * self.engines) {
            return false;
        }
        s.next_claim += 1;
        drop(s);
        let r = Arc::new(self.decode(c, (c == 0).then_some(self.data_start), walker));
        self.slots.lock().unwrap_or_else(|p| p.into_inner()).done.insert(c, r);
        self.ready.notify_all();
        true
    }

    /// Whether the first range opens a flow every [`SEGMENTS_PER_FLOW`] segments or more often.
    fn scan_like(&self) -> bool {
        let Ok(r) = self.decode_mapping(0, Some(self.data_start), &mut Walker::new(None, self.engines), OVERRUN) else { return false };
        let mut seg = TcpSegment::default();
        let mut keys = ahash::AHashSet::new();
        let segs: Vec<&Placed> = r.segs.iter().flatten().collect();
        for p in &segs {
            if decode::decode_into(self.linktype, r.frame(p), p.origlen, &mut seg).is_ok() {
                keys.insert(FlowKey::of(&seg));
            }
        }
        keys.len() * SEGMENTS_PER_FLOW > segs.len()
    }

    /// Engine `w` is done with range `k`: ranges every engine is done with go.
    fn taken(&self, w: usize, k: usize) {
        let mut s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        s.taken[w] = k + 1;
        let slowest = s.taken.iter().copied().min().unwrap_or(0);
        let kept = s.done.split_off(&slowest);
        let gone = std::mem::replace(&mut s.done, kept);
        self.ready.notify_all();
        drop(s);
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        for mut r in gone.into_values().filter_map(|r| Arc::try_unwrap(r).ok()) {
            if spare.len() < AHEAD * self.engines {
                r.map = None;
                spare.push(r);
            }
        }
    }

    /// An empty range to fill, with vectors from one that went if there is one.
    fn fresh(&self) -> Range {
        let reused = self.spare.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut r = reused.unwrap_or_else(|| Range {
            start: u64::MAX,
            end: u64::MAX,
            records: 0,
            ts: Vec::new(),
            segs: (0..self.engines).map(|_| Vec::new()).collect(),
            map: None,
            other: ScanStats::default(),
            filtered: 0,
            damaged: false,
        });
        r.ts.clear();
        r.segs.iter_mut().for_each(Vec::clear);
        (r.start, r.end, r.records, r.other, r.filtered, r.damaged) = (u64::MAX, u64::MAX, 0, ScanStats::default(), 0, false);
        r
    }

    fn abandon(&self) {
        self.slots.lock().unwrap_or_else(|p| p.into_inner()).abandoned = true;
        self.ready.notify_all();
        self.tally.abandon();
    }

    /// Nominal offset of range `k`, and where its records stop starting.
    fn bounds(&self, k: usize) -> (u64, u64) {
        let from = self.data_start + k as u64 * self.range_bytes;
        (from, (from + self.range_bytes).min(self.len))
    }

    /// Walks and decodes range `k` from `start`, or from the first boundary found after
    /// its nominal offset.
    fn decode(&self, k: usize, start: Option<u64>, walker: &mut Walker) -> Range {
        let r = match self.decode_mapping(k, start, walker, OVERRUN) {
            Err(()) => self.decode_mapping(k, start, walker, MAX_OVERRUN).unwrap_or_else(|()| self.damaged(start)),
            Ok(r) => r,
        };
        self.owners.report(&mut walker.owners);
        r
    }

    fn damaged(&self, start: Option<u64>) -> Range {
        Range {
            start: start.unwrap_or(u64::MAX),
            end: u64::MAX,
            records: 0,
            ts: Vec::new(),
            segs: Vec::new(),
            map: None,
            other: ScanStats::default(),
            filtered: 0,
            damaged: true,
        }
    }

    /// `decode` with `overrun` bytes mapped past the range: `Err` when its last record (or
    /// the search for its first) runs past them before the end of the file.
    fn decode_mapping(&self, k: usize, start: Option<u64>, walker: &mut Walker, overrun: u64) -> Result<Range, ()> {
        let (nominal, stop) = self.bounds(k);
        let from = start.unwrap_or(nominal);
        let mut r = self.fresh();
        let to = stop.saturating_add(overrun).min(self.len);
        if from >= to {
            return Ok(Range { start: from, end: from, ..r });
        }
        // SAFETY: the file is only read; a file truncated by another process while mapped
        // ends the process with SIGBUS, as for the one-reader path (`TCPDIAG_NO_MMAP`).
        let Ok(map) = (unsafe { MmapOptions::new().offset(from).len((to - from) as usize).populate().map(&self.file) }) else {
            return Ok(Range { damaged: true, start: from, ..r });
        };
        let bytes: &[u8] = &map;
        let cut = to < self.len;
        let mut pos = match start {
            Some(_) => 0,
            None => match (0..bytes.len()).find(|&p| self.looks_like_records(bytes, p, !cut)) {
                Some(p) => p,
                None if cut => return Err(()),
                None => return Ok(r),
            },
        };
        r.start = from + pos as u64;
        let hlen = self.st.record_header_len();
        // Each frame is decoded here as far as its 4-tuple, and its place handed to the
        // engine that owns it (which decodes it in full).
        let mut seg = TcpSegment::default();
        while from + (pos as u64) < stop {
            if pos + hlen > bytes.len() {
                if cut {
                    return Err(());
                }
                r.damaged = true;
                break;
            }
            let [sec, frac, incl, orig] = self.st.header(&bytes[pos..pos + hlen]);
            let end = pos + hlen + incl as usize;
            if incl > self.st.max_caplen() {
                r.damaged = true;
                break;
            }
            if end > bytes.len() {
                if cut {
                    return Err(());
                }
                r.damaged = true;
                break;
            }
            let frame = Frame {
                number: r.records as u64 + 1,
                ts_ns: self.st.ts_ns(sec, frac),
                caplen: incl,
                origlen: orig,
                interface: 0,
                linktype: self.linktype,
                data: &bytes[pos + hlen..end],
                options: None,
            };
            let at = r.records;
            r.records += 1;
            pos = end;
            if walker.filter.as_mut().is_some_and(|f| !f.matches(&frame)) {
                r.filtered += 1;
                r.ts.push(i64::MIN);
                continue;
            }
            r.ts.push(frame.ts_ns);
            // Only the 4-tuple is needed here: the common frame's, from the lean decoder.
            let tcp = decode::lean::flow_fields(frame.linktype, frame.data, frame.origlen, &mut seg)
                || match decode::decode_into(frame.linktype, frame.data, frame.origlen, &mut seg) {
                    Ok(()) => true,
                    Err((layer, reason)) => {
                        r.other.frames += 1;
                        r.other.count_stop(frame.number, layer, reason);
                        false
                    }
                };
            if tcp {
                let owner = self.owners.of(FlowKey::of(&seg), &mut walker.owners);
                r.segs[owner].push(Placed { at, pos: (end - incl as usize) as u32, caplen: incl, origlen: orig });
            }
        }
        r.end = from + pos as u64;
        r.map = Some(map);
        Ok(r)
    }

    /// Whether `SYNC_RECORDS` plausible record headers follow each other from `p` (or run
    /// to the end of the file).
    fn looks_like_records(&self, bytes: &[u8], mut p: usize, ends_file: bool) -> bool {
        let hlen = self.st.record_header_len();
        let frac_limit = if self.st.magic.nanos { 1_000_000_000 } else { 1_000_000 };
        for n in 0..SYNC_RECORDS {
            if p == bytes.len() && ends_file {
                return n > 0;
            }
            if p + hlen > bytes.len() {
                return n > 0 && !ends_file;
            }
            let [sec, frac, incl, orig] = self.st.header(&bytes[p..p + hlen]);
            if incl > orig || incl > self.st.max_caplen() || frac >= frac_limit || sec.abs_diff(self.first_sec) > SYNC_SECONDS {
                return false;
            }
            p += hlen + incl as usize;
        }
        true
    }
}

/// Adds a range's non-TCP counts (frame numbers from 1 within the range) after `base`
/// earlier frames.
fn add_range(to: &mut ScanStats, r: &ScanStats, base: u64) {
    to.frames += r.frames;
    to.not_tcp += r.not_tcp;
    to.undecodable += r.undecodable;
    to.fragments += r.fragments;
    for &(lt, n, first) in &r.unknown_linktypes {
        match to.unknown_linktypes.iter_mut().find(|(t, _, _)| *t == lt) {
            Some((_, m, _)) => *m += n,
            None => to.unknown_linktypes.push((lt, n, first + base)),
        }
    }
    if to.first_undecodable.is_none() {
        to.first_undecodable = r.first_undecodable.as_ref().map(|(f, why)| (f + base, why.clone()));
    }
}

/// One outcome from the engines' parts: flows numbered by first frame, as one engine
/// would have numbered them.
fn merge(parts: Vec<Part>, sh: &Shared) -> Outcome {
    let mut order: Vec<(u64, usize, usize)> = Vec::new();
    for (w, p) in parts.iter().enumerate() {
        order.extend(p.outcome.scan.flows.iter().enumerate().map(|(i, f)| (f.first_frame, w, i)));
    }
    order.sort_unstable();
    let mut global: Vec<Vec<u32>> = parts.iter().map(|p| vec![0; p.outcome.scan.flows.len()]).collect();
    for (g, &(_, w, i)) in order.iter().enumerate() {
        global[w][i] = g as u32;
    }
    let mut stats = ScanStats { format: "pcap", input_bytes: sh.len, ..ScanStats::default() };
    let mut flows: Vec<Option<FlowSummary>> = (0..order.len()).map(|_| None).collect();
    let mut verdicts: Vec<Option<FlowVerdict>> = (0..order.len()).map(|_| None).collect();
    let mut episodes = Vec::new();
    let mut engine = super::EngineStats::default();
    let mut active = 0;
    for (w, p) in parts.into_iter().enumerate() {
        let o = p.outcome;
        let s = &o.scan.stats;
        stats.frames += s.frames;
        stats.tcp_segments += s.tcp_segments;
        stats.icmp_quoted += s.icmp_quoted;
        add_range(&mut stats, &p.other, 0);
        for (i, (mut f, v)) in o.scan.flows.into_iter().zip(o.verdicts).enumerate() {
            let g = global[w][i];
            f.stream = g;
            verdicts[g as usize] = Some(v);
            flows[g as usize] = Some(f);
        }
        episodes.extend(o.episodes.iter().map(|&(s, n)| (global[w][s as usize], n)));
        engine.evicted += o.engine.evicted;
        engine.resumed += o.engine.resumed;
        engine.filtered_out += p.filtered;
        active += p.active;
    }
    engine.peak_active = sh.tally.peak().max(active);
    episodes.sort_unstable();
    let flows = flows.into_iter().map(|f| f.expect("every stream numbered once")).collect();
    let verdicts = verdicts.into_iter().map(|v| v.expect("a verdict per flow")).collect();
    Outcome { scan: Scan { flows, stats, error: None }, verdicts, episodes, engine }
}

