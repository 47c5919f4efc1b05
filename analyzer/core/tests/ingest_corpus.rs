//! Every capture in the shared corpus (pcap, pcapng, snoop, Peek classic; plain or
//! compressed) reads with the same frame numbers, timestamps, wire and captured lengths as
//! `tshark -r F -T fields -e frame.time_epoch -e frame.len -e frame.cap_len` prints. Skips
//! when the corpus or tshark is absent. Files tshark cannot read must give a clean error
//! here, never a panic; a file tshark reads and we call "not a capture" is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use tcpdiag_core::ingest::{CaptureReader, IngestErrorKind};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn captures(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            captures(&p, out);
        } else if !matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("md" | "etl" | "txt")
        ) {
            out.push(p);
        }
    }
}

/// "1234.567890123" (or "-1.5", or empty for records without time) → nanoseconds.
fn parse_epoch(s: &str) -> Option<i64> {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut frac = frac.to_string();
    frac.truncate(9);
    while frac.len() < 9 {
        frac.push('0');
    }
    let ns = sec.parse::<i128>().ok()? * 1_000_000_000 + frac.parse::<i128>().ok()?;
    let ns = if neg { -ns } else { ns };
    // Like the reader, saturate beyond the i64 range (year 2262).
    Some(ns.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// One frame as tshark shows it: time (None for records without one), wire and captured
/// lengths.
type TsharkFrame = (Option<i64>, Option<u32>, Option<u32>);

/// tshark's frames and whether it reported an error.
fn tshark(path: &Path) -> Option<(Vec<TsharkFrame>, bool)> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(path)
        .args(["-T", "fields", "-E", "separator=/t", "-e", "frame.time_epoch", "-e", "frame.len", "-e", "frame.cap_len"])
        .env("TZ", "UTC")
        .output()
        .ok()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let failed = !out.status.success() || stderr.contains("tshark:");
    let frames = stdout
        .lines()
        .map(|l| {
            let mut f = l.split('\t');
            let (t, len, cap) = (f.next().unwrap_or(""), f.next().unwrap_or(""), f.next().unwrap_or(""));
            (parse_epoch(t), len.parse().ok(), cap.parse().ok())
        })
        .collect();
    Some((frames, failed))
}

#[test]
fn corpus_every_capture_matches_tshark() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!("skipped: no corpus at {}", dir.display());
        return;
    }
    if Command::new("tshark").arg("-v").output().is_err() {
        eprintln!("skipped: tshark not installed");
        return;
    }
    let mut files = Vec::new();
    captures(&dir, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut compared = 0;
    for path in &files {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let Some((want, tshark_failed)) = tshark(path) else {
            continue;
        };
        let (frames, err) = match CaptureReader::open(path) {
            Ok(mut r) => common::drain(&mut r),
            Err(e) => (Vec::new(), Some(e)),
        };
        if want.is_empty() && tshark_failed {
            // Not readable by tshark (or not a format it knows): a clean error is enough.
            if err.is_none() && !frames.is_empty() {
                problems.push(format!(
                    "{name}: tshark fails, we read {} frames",
                    frames.len()
                ));
            }
            eprintln!(
                "{name}: tshark cannot read; ours: {}",
                err.map_or("ok".into(), |e| e.to_string())
            );
            continue;
        }
        if let Some(e) = &err {
            if e.offset == 0 && matches!(e.kind, IngestErrorKind::NotACapture { .. } | IngestErrorKind::Unsupported(_)) {
                problems.push(format!("{name}: tshark reads {} frames; ours: {e}", want.len()));
                continue;
            }
            if !tshark_failed {
                problems.push(format!("{name}: {e} (tshark reads {} frames)", want.len()));
                continue;
            }
        }
        compared += 1;
        let last = frames.last().map_or(0, |f| f.number);
        if last != want.len() as u64 {
            problems.push(format!("{name}: last frame {last}, tshark {}", want.len()));
        }
        for f in &frames {
            let Some(&(t, len, cap)) = want.get(f.number as usize - 1) else {
                continue;
            };
            let ours = (Some(f.ts_ns), Some(f.origlen), Some(f.data.len() as u32));
            let theirs = (t.or(ours.0), len.or(ours.1), cap.or(ours.2));
            if ours != theirs {
                problems.push(format!("{name}: frame {} (time ns, len, cap_len) {ours:?}, tshark {theirs:?}", f.number));
                break;
            }
        }
        eprintln!(
            "{name}: {} frames, first {:?} last {:?}",
            want.len(),
            want.first(),
            want.last()
        );
    }
    eprintln!("compared {compared} of {} files", files.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn parse_epoch_reads_tshark_times() {
    assert_eq!(parse_epoch("1.000005000"), Some(1_000_005_000));
    assert_eq!(parse_epoch("-1.5"), Some(-1_500_000_000));
    assert_eq!(parse_epoch(""), None);
}
