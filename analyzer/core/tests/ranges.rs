//! `-j N` on a pcap file cut into byte ranges (`parallel/ranges.rs`) gives the one-thread
//! results: the same flows, numbers, verdicts, counts, evictions and episodes, whatever
//! the range size, the number of engines and where the range boundaries fall.

use std::io::Read;
use std::path::{Path, PathBuf};

use tcpdiag_core::bpf::FrameFilter;
use tcpdiag_core::ingest::{CaptureReader, PcapWriter};
use tcpdiag_core::libpcap;
use tcpdiag_core::parallel::{run, run_file, run_file_in, EngineOptions, Outcome};

mod common;
use common::raw_tcp;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file in a directory of the test's own (tests run at once; rewriting a file another
/// has mapped would kill it).
fn scratch(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tcpdiag-ranges-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Every sample capture, uncompressed as it was written.
fn samples(test: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".pcap.gz"))
        .collect();
    v.sort();
    v.iter()
        .map(|gz| {
            let mut raw = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap()).read_to_end(&mut raw).unwrap();
            let out = scratch(test, &gz.file_name().unwrap().to_string_lossy().replace(".gz", ""));
            std::fs::write(&out, raw).unwrap();
            out
        })
        .collect()
}

fn everything(o: &Outcome) -> String {
    let s = &o.scan;
    format!("{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}", s.flows, s.stats, s.error.as_ref().map(|e| e.to_string()), o.verdicts, o.episodes, o.engine)
}

fn one_thread(p: &Path, opts: &EngineOptions, filter: Option<FrameFilter>) -> String {
    everything(&run(CaptureReader::open(p).unwrap(), EngineOptions { jobs: 1, ..opts.clone() }, filter))
}

fn assert_same_in_ranges(p: &Path, opts: EngineOptions, filter: Option<FrameFilter>, sizes: &[u64]) {
    let want = one_thread(p, &opts, filter.clone());
    for jobs in [2, 3] {
        for &size in sizes {
            let o = EngineOptions { jobs, ..opts.clone() };
            let got = run_file_in(p, &o, filter.as_ref(), size).expect("a plain pcap file takes the range path");
            assert_eq!(everything(&got), want, "{} -j {jobs}, ranges of {size} bytes", p.display());
        }
    }
}

#[test]
fn samples_same_results_in_any_ranges() {
    for p in samples("samples") {
        for idle in [None, Some(1_000_000_000)] {
            let opts = EngineOptions { idle_timeout_ns: idle, ..EngineOptions::default() };
            assert_same_in_ranges(&p, opts, None, &[1 << 11, 5_001, 1 << 20]);
        }
    }
}

#[test]
fn scan_past_many_flows_evicts_as_one_thread_does() {
    // 30,000 SYN → RST/ACK exchanges 1 ms apart, every 7th port used twice with a new ISN
    // (port reuse): past MANY_FLOWS open flows the reset ones are judged after the close
    // grace, a decision on the count of all engines' flows together.
    let s = 1_000_000_000i64;
    let path = scratch("scan", "scan.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap(), 101, 65535, true).unwrap();
    for i in 0..30_000u32 {
        let port = 1024 + (i % 4_000) as u16 * 7 % 28_000;
        let ts = 1_700_000_000 * s + i as i64 * 1_000_000;
        let (a, b) = (raw_tcp(false, port, 0x02, i * 3, 0, 0), raw_tcp(true, port, 0x14, 0, i * 3 + 1, 0));
        w.write_packet(ts, &a, a.len() as u32).unwrap();
        w.write_packet(ts + 100_000, &b, b.len() as u32).unwrap();
    }
    drop(w);
    let opts = EngineOptions { close_grace_ns: s, ..EngineOptions::default() };
    let got = run_file_in(&path, &EngineOptions { jobs: 2, ..opts.clone() }, None, 1 << 16).unwrap();
    assert!(got.engine.evicted > 10_000 && got.scan.flows.len() == 30_000, "{:?}", got.engine);
    assert_same_in_ranges(&path, opts.clone(), None, &[1 << 16, 100_003]);
    // Left to the one-reader path when not forced into ranges (faster there).
    assert!(run_file(&path, &EngineOptions { jobs: 2, ..opts }, None).is_none());
}

#[test]
fn filtered_frames_keep_their_numbers() {
    if !libpcap::available() {
        return;
    }
    let p = &samples("filter")[0];
    let f = FrameFilter::new("tcp and src port 5201").unwrap();
    assert_same_in_ranges(p, EngineOptions::default(), Some(f), &[1 << 12]);
}

#[test]
fn cut_capture_takes_the_one_reader_path() {
    let p = &samples("cut")[0];
    let bytes = std::fs::read(p).unwrap();
    let cut = scratch("cut", "cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    let opts = EngineOptions { jobs: 2, ..EngineOptions::default() };
    assert!(run_file_in(&cut, &opts, None, 1 << 12).is_none());
    assert!(run_file_in(p, &EngineOptions::default(), None, 1 << 12).is_none(), "one job reads one way");
    assert!(run_file(p, &opts, None).is_some(), "a bulk transfer takes the range path");
}
