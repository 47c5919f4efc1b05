//! Runs the engine over captures and prints what the scale benchmarks need: wall time,
//! frames, flows, peak active flows, evictions, and verdict counts.
//! `scale_run [-j N] [--idle SECONDS|0] [--filter EXPR] FILE...` (several files: merged)

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use tcpdiag_core::bpf::FrameFilter;
use tcpdiag_core::ingest::merge::MergedSource;
use tcpdiag_core::ingest::CaptureReader;
use tcpdiag_core::parallel::{run, EngineOptions};

fn main() {
    let mut opts = EngineOptions::default();
    let (mut filter, mut files) = (None, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-j" => opts.jobs = args.next().unwrap().parse().unwrap(),
            "--idle" => {
                let s: f64 = args.next().unwrap().parse().unwrap();
                opts.idle_timeout_ns = (s > 0.0).then_some((s * 1e9) as i64);
            }
            "--scan-only" => {
                // Read, decode and place only (the sequential part), for the speed-up budget.
                let t = Instant::now();
                let s = tcpdiag_core::pipeline::scan(CaptureReader::open(Path::new(&args.next().unwrap())).unwrap(), &mut tcpdiag_core::pipeline::NoSink);
                println!("{{\"scan_only_s\": {:.3}, \"frames\": {}}}", t.elapsed().as_secs_f64(), s.stats.frames);
                return;
            }
            "--analyzer" => {
                // The single-thread path of `tcpdiag analyze` (`_native.analyze`): one boxed
                // reader, the `Analyzer` with no notes, verdicts rendered into the tables.
                let t = Instant::now();
                let reader: Box<dyn tcpdiag_core::ingest::FrameSource> = Box::new(CaptureReader::open(Path::new(&args.next().unwrap())).unwrap());
                let o = opts.judge;
                let mut a = tcpdiag_core::analyse::Analyzer::with_store(tcpdiag_core::analyse::NoNotes, o, tcpdiag_core::emit::diagnosis::Diagnosis::new(o));
                let s = tcpdiag_core::pipeline::scan(reader, &mut a);
                let (d, _) = a.finish_into(&s.flows);
                let (flows, findings) = d.finish(&s.flows).unwrap();
                println!("{{\"analyzer_s\": {:.3}, \"frames\": {}, \"flows\": {}, \"findings\": {}}}", t.elapsed().as_secs_f64(), s.stats.frames, flows.num_rows(), findings.num_rows());
                return;
            }
            "--filter" => filter = Some(FrameFilter::new(&args.next().unwrap()).unwrap()),
            _ => files.push(a),
        }
    }
    let t = Instant::now();
    let mut readers: Vec<CaptureReader> = files.iter().map(|f| CaptureReader::open(Path::new(f)).unwrap()).collect();
    let ranged = (files.len() == 1 && std::env::var_os("SCALE_RUN_NO_RANGES").is_none())
        .then(|| tcpdiag_core::parallel::run_file(Path::new(&files[0]), &opts, filter.as_ref()))
        .flatten();
    let o = if let Some(o) = ranged {
        o
    } else if readers.len() == 1 { run(readers.pop().unwrap(), opts.clone(), filter) } else { run(MergedSource::new(readers), opts.clone(), filter) };
    let secs = t.elapsed().as_secs_f64();
    let mut counts = BTreeMap::new();
    for v in &o.verdicts {
        *counts.entry(v.findings[0].id).or_insert(0u64) += 1;
    }
    println!(
        "{{\"jobs\": {}, \"wall_s\": {secs:.3}, \"frames\": {}, \"flows\": {}, \"peak_active\": {}, \"evicted\": {}, \"resumed\": {}, \"verdicts\": {:?}}}",
        opts.jobs, o.scan.stats.frames, o.scan.flows.len(), o.engine.peak_active, o.engine.evicted, o.engine.resumed,
        counts
    );
}
