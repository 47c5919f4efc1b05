//! Compares two captures and prints the pairs, the clock and the findings (a development aid).
//!
//!     cargo run --release -p tcpdiag-core --example compare_pair -- A.pcap B.pcap

use std::path::Path;

use tcpdiag_core::compare::{compare, CompareOptions};
use tcpdiag_core::ingest::CaptureReader;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let open = |p: &str| Box::new(CaptureReader::open(Path::new(p)).unwrap_or_else(|e| panic!("{p}: {e}")));
    let t = std::time::Instant::now();
    let c = compare(open(&args[0]), open(&args[1]), &CompareOptions::default());
    eprintln!("compared in {:.2?}: {} + {} segments", t.elapsed(), c.a.segs.len(), c.b.segs.len());
    println!("clock: {:?}", c.clock);
    for p in &c.pairs {
        println!("pair a={:?} b={:?} match={:?}", p.a, p.b, p.matched);
        for (i, d) in p.dirs.iter().enumerate() {
            println!("  dir {i}: a_up={} seen {}/{} data {} deliv {} between {} before {} after {} acks_lost {} gap a/b {}/{} outside {} split {} merged {} reord {} late {} max {:.2} ms owd {:?}",
                d.a_upstream, d.seen_a, d.seen_b, d.data_sent, d.delivered, d.lost_between, d.lost_before, d.lost_after, d.acks_lost,
                d.not_captured_a, d.not_captured_b, d.outside, d.split, d.merged, d.reordered, d.late, d.max_late_ns as f64 / 1e6, d.owd);
        }
        for f in &p.findings {
            println!("  [{}] {} | a {:?} b {:?}", f.id.name(), f.message(), f.frames, f.frames_b);
        }
    }
}
