//! The multi-core engine gives the single-thread analysis' results; merged pieces give the
//! whole capture's; eviction keeps `tcp.stream` numbering; the BPF interpreter agrees with
//! libpcap's `pcap_offline_filter` on every corpus frame.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use tcpdiag_core::analyse::{Analyzer, FlowState, NoNotes};
use tcpdiag_core::bpf::{FrameFilter, Program};
use tcpdiag_core::ingest::merge::MergedSource;
use tcpdiag_core::ingest::{CaptureReader, PcapWriter};
use tcpdiag_core::libpcap;
use tcpdiag_core::parallel::{run, EngineOptions, Outcome};
use tcpdiag_core::pipeline::scan;

mod common;
use common::{raw_tcp as seg, samples};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// pcap/pcapng files of the shared corpus (empty when it is absent).
fn corpus() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if CaptureReader::open(&p).is_ok() {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&repo().join("../../shared/corpus"), &mut v);
    walk(&repo().join("../shared/corpus"), &mut v);
    v.sort();
    v
}

fn open(p: &Path) -> CaptureReader {
    CaptureReader::open(p).unwrap()
}

/// The reference: `pipeline::scan` with the single-thread `Analyzer`, judged at the end.
fn reference(p: &Path) -> (String, Vec<String>) {
    let mut a = Analyzer::new(NoNotes, Default::default());
    let s = scan(open(p), &mut a);
    let verdicts = a.finish(&s.flows).0.iter().map(|v| format!("{v:?}")).collect();
    (format!("{:?} {:?} {:?}", s.flows, s.stats, s.error.map(|e| e.to_string())), verdicts)
}

/// A sink that asks for every packet's notes (and drops them): the full analysis step.
struct WantsNotes;
impl tcpdiag_core::analyse::NotesSink for WantsNotes {
    fn packet(&mut self, _: &tcpdiag_core::ingest::Frame<'_>, _: &tcpdiag_core::decode::TcpSegment, _: tcpdiag_core::flow::Placement, _: &tcpdiag_core::analyse::PacketNotes) {}
}

#[test]
fn verdicts_are_the_same_whether_notes_are_kept_or_not() {
    // The verdict-only step (`FlowState::on_segment_state`) skips note work: it must move
    // the state exactly as the full one does.
    for p in samples().into_iter().chain(corpus()) {
        let mut a = Analyzer::new(WantsNotes, Default::default());
        let s = scan(open(&p), &mut a);
        let full: Vec<String> = a.finish(&s.flows).0.iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(full, reference(&p).1, "{}", p.display());
    }
}

fn rendered(o: &Outcome) -> (String, Vec<String>) {
    let s = &o.scan;
    (
        format!("{:?} {:?} {:?}", s.flows, s.stats, s.error.as_ref().map(|e| e.to_string())),
        o.verdicts.iter().map(|v| format!("{v:?}")).collect(),
    )
}

fn opts(jobs: usize, idle: Option<i64>) -> EngineOptions {
    EngineOptions { jobs, idle_timeout_ns: idle, ..EngineOptions::default() }
}

#[test]
fn samples_same_verdicts_on_one_two_and_three_workers() {
    for p in samples() {
        let want = reference(&p);
        for jobs in [1, 2, 3] {
            for idle in [None, Some(300_000_000_000)] {
                let got = rendered(&run(open(&p), opts(jobs, idle), None));
                assert_eq!(got.0, want.0, "{} jobs={jobs}", p.display());
                assert_eq!(got.1, want.1, "{} jobs={jobs} idle={idle:?}", p.display());
            }
        }
    }
}

#[test]
fn corpus_same_results_on_two_workers() {
    let files = corpus();
    if files.is_empty() {
        eprintln!("skipped: no corpus");
        return;
    }
    let mut n = 0;
    for p in files {
        let want = reference(&p);
        let got = rendered(&run(open(&p), opts(2, None), None));
        assert_eq!(got, want, "{}", p.display());
        n += 1;
    }
    assert!(n > 10);
}

/// Rewrites a capture as `pieces` pcap files of consecutive frames (as `tcpdump -C` rotates).
fn split(p: &Path, pieces: usize, dir: &Path) -> Vec<PathBuf> {
    let mut r = open(p);
    let mut frames = Vec::new();
    while let Some(f) = r.next_frame().unwrap() {
        frames.push((f.ts_ns, f.origlen, f.linktype, f.data.to_vec()));
    }
    let per = frames.len().div_ceil(pieces);
    let mut out = Vec::new();
    for (i, chunk) in frames.chunks(per).enumerate() {
        let path = dir.join(format!("piece{i}.pcap"));
        let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), chunk[0].2, 262_144, true).unwrap();
        for (ts, orig, _, data) in chunk {
            w.write_packet(*ts, data, *orig).unwrap();
        }
        out.push(path);
    }
    out
}

#[test]
fn rotated_pieces_merge_to_the_whole_capture() {
    let dir = std::env::temp_dir().join(format!("tcpdiag-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for p in samples().iter().take(3) {
        let pieces = split(p, 4, &dir);
        // Listed in reverse: the merge orders by time, not by argument order.
        let readers = pieces.iter().rev().map(|x| open(x)).collect();
        let got = rendered(&run(MergedSource::new(readers), opts(2, None), None));
        let want = reference(p);
        assert_eq!(got.1, want.1, "{}", p.display());
        let whole = run(open(p), opts(1, None), None);
        let merged = run(MergedSource::new(pieces.iter().map(|x| open(x)).collect()), opts(1, None), None);
        assert_eq!(format!("{:?}", merged.scan.flows), format!("{:?}", whole.scan.flows));
    }
    std::fs::remove_dir_all(&dir).ok();
}

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const SYNACK: u8 = 0x12;

#[test]
fn idle_flow_evicted_then_resumed_keeps_its_stream() {
    let s = 1_000_000_000i64;
    let frames: Vec<(i64, Vec<u8>)> = vec![
        (0, seg(false, 1000, SYN, 100, 0, 0)),
        (s / 100, seg(true, 1000, SYNACK, 900, 101, 0)),
        (2 * s / 100, seg(false, 1000, ACK, 101, 901, 100)),
        // An unrelated flow keeps capture time moving past the idle timeout.
        (50 * s, seg(false, 2000, SYN, 7, 0, 0)),
        (120 * s, seg(false, 2000, SYN, 7, 0, 0)),
        // The first flow resumes after 150 s idle: same stream in Wireshark.
        (150 * s, seg(true, 1000, ACK, 901, 201, 0)),
        // A SYN with a new ISN on the same ports: port reuse, a new stream.
        (200 * s, seg(false, 1000, SYN, 5000, 0, 0)),
    ];
    let mut buf = Vec::new();
    let mut w = PcapWriter::new(&mut buf, 101, 65535, true).unwrap();
    for (ts, d) in &frames {
        w.write_packet(1_700_000_000 * s + ts, d, d.len() as u32).unwrap();
    }
    drop(w);
    let reader = || CaptureReader::from_read(Box::new(Cursor::new(buf.clone()))).unwrap();
    let evicting = run(reader(), EngineOptions { idle_timeout_ns: Some(60 * s), ..EngineOptions::default() }, None);
    let keeping = run(reader(), opts(1, None), None);
    assert_eq!(format!("{:?}", evicting.scan.flows), format!("{:?}", keeping.scan.flows));
    let streams: Vec<(u32, u64)> = evicting.scan.flows.iter().map(|f| (f.stream, f.first_frame)).collect();
    assert_eq!(streams, vec![(0, 1), (1, 4), (2, 7)]);
    assert_eq!(evicting.engine.resumed, 1);
    assert!(evicting.engine.evicted >= 2);
    assert_eq!(evicting.episodes, vec![(0, 2)]);
    assert_eq!(evicting.verdicts.len(), 3);
}

#[test]
fn many_short_flows_hold_few_states() {
    // 40,000 SYN → RST/ACK exchanges, 1 ms apart: a scan. Past MANY_FLOWS open flows,
    // those reset without data are judged after the 1 s close grace: at most MANY_FLOWS
    // and a second's worth of flows hold state at once, not every flow.
    let s = 1_000_000_000i64;
    let mut buf = Vec::new();
    let mut w = PcapWriter::new(&mut buf, 101, 65535, true).unwrap();
    for i in 0..40_000u32 {
        let port = 1024 + (i % 60_000) as u16;
        let ts = 1_700_000_000 * s + i as i64 * 1_000_000;
        let a = seg(false, port, SYN, i, 0, 0);
        let b = seg(true, port, 0x14, 0, i + 1, 0);
        w.write_packet(ts, &a, a.len() as u32).unwrap();
        w.write_packet(ts + 100_000, &b, b.len() as u32).unwrap();
    }
    drop(w);
    let o = run(
        CaptureReader::from_read(Box::new(Cursor::new(buf))).unwrap(),
        EngineOptions { jobs: 2, close_grace_ns: s, ..EngineOptions::default() },
        None,
    );
    assert_eq!((o.scan.flows.len(), o.verdicts.len()), (40_000, 40_000));
    assert!(o.engine.evicted > 20_000, "{:?}", o.engine);
    assert!(o.engine.peak_active < tcpdiag_core::analyse::MANY_FLOWS + 1_500, "{:?}", o.engine);
}

#[test]
fn bpf_interpreter_agrees_with_libpcap_on_corpus() {
    if !libpcap::available() {
        eprintln!("skipped: libpcap not installed");
        return;
    }
    let exprs = [
        "tcp",
        "host 10.0.0.5 and tcp port 443",
        "tcp[tcpflags] & (tcp-syn|tcp-fin) != 0",
        "ip6 or vlan",
        "net 192.168.0.0/16 and not port 22",
        "tcp and greater 200",
        "ip[6:2] & 0x1fff != 0 or ip6 proto 44",
        "tcp portrange 1-1023 and (ip[2:2] - ((ip[0]&0xf)<<2) - ((tcp[12]&0xf0)>>2)) > 0",
    ];
    let files: Vec<PathBuf> = corpus().into_iter().chain(samples()).collect();
    let (mut frames, mut passed) = (0u64, 0u64);
    for p in &files {
        let mut r = open(p);
        let mut progs: Vec<(u32, Vec<Option<(libpcap::Compiled, Program)>>)> = Vec::new();
        loop {
            let f = match r.next_frame() {
                Ok(Some(f)) => f,
                _ => break,
            };
            if !progs.iter().any(|(lt, _)| *lt == f.linktype) {
                let compiled = exprs
                    .iter()
                    .map(|e| libpcap::compile(e, f.linktype, 262_144).ok().map(|c| {
                        let prog = Program::new(c.insns.clone());
                        (c, prog)
                    }))
                    .collect();
                progs.push((f.linktype, compiled));
            }
            let set = &progs.iter().find(|(lt, _)| *lt == f.linktype).unwrap().1;
            for (e, c) in exprs.iter().zip(set) {
                if let Some((lib, ours)) = c {
                    let want = lib.reference_matches(f.data, f.origlen);
                    let got = ours.run(f.data, f.origlen) != 0;
                    assert_eq!(got, want, "{} frame {} filter {e:?}", p.display(), f.number);
                    passed += got as u64;
                }
            }
            frames += 1;
        }
    }
    assert!(frames > 1000 && passed > 100, "{frames} frames, {passed} matches");
}

#[test]
fn bpf_filter_keeps_original_frame_numbers() {
    if !libpcap::available() {
        return;
    }
    let p = &samples()[0];
    let all = run(open(p), opts(1, None), None);
    let f = FrameFilter::new("tcp and src port 5201").unwrap();
    let o = run(open(p), opts(1, None), Some(f));
    assert_eq!(o.scan.flows.len(), all.scan.flows.len());
    // Only the receiver's packets remain, under their unfiltered frame numbers: the flow
    // now starts at the SYN/ACK.
    let (f, whole) = (&o.scan.flows[0], &all.scan.flows[0]);
    assert_eq!(f.a.1, 5201);
    assert_eq!(Some(f.first_frame), whole.sides[1].syn_frame);
    assert_eq!(f.sides[1].packets, 0);
    assert_eq!(f.sides[0].packets, whole.sides[1].packets);
    assert!(o.engine.filtered_out > 0);
    assert!(FrameFilter::new("host and and").is_err());
}

#[test]
fn sizes_for_the_memory_bound() {
    use std::mem::size_of;
    eprintln!(
        "FlowState {} FlowSummary {} FlowVerdict {} TcpSegment {}",
        size_of::<FlowState>(),
        size_of::<tcpdiag_core::flow::FlowSummary>(),
        size_of::<tcpdiag_core::analyse::verdict::FlowVerdict>(),
        size_of::<tcpdiag_core::decode::TcpSegment>()
    );
}
