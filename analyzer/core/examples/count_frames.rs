//! Counts the frames and captured bytes of a capture and reports the read speed:
//! `cargo run --release -p tcpdiag-core --example count_frames -- FILE` (`-` = stdin).

use std::path::Path;
use std::time::Instant;

use tcpdiag_core::ingest::CaptureReader;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: count_frames FILE");
        std::process::exit(2);
    };
    let start = Instant::now();
    let mut reader = match CaptureReader::open(Path::new(&path)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let (mut frames, mut bytes) = (0u64, 0u64);
    let status = loop {
        match reader.next_frame() {
            Ok(Some(f)) => {
                frames += 1;
                bytes += f.data.len() as u64;
            }
            Ok(None) => break 0,
            Err(e) => {
                eprintln!("{path}: {e}");
                break 1;
            }
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let input = reader.input_bytes_read();
    println!(
        "{frames} frames, {bytes} captured bytes, {input} input bytes in {secs:.3} s: {:.0} MB/s, {:.2} Mframes/s ({:?})",
        input as f64 / secs / 1e6,
        frames as f64 / secs / 1e6,
        reader.format()
    );
    std::process::exit(status);
}
