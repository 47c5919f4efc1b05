//! Dev tool for `tests/dev/decode_vs_tshark.py`: reads `linktype origlen hex` lines on
//! stdin, decodes each frame and prints one tab-separated line per frame:
//! `tcp src dst sport dport seq ack len flags window depth` or `other layer reason`.
//!
//! With `--bench N` it instead decodes a built-in Ethernet/IPv4/TCP frame N times and
//! prints frames per second (run with `--release`).

use std::io::{BufRead, Write};
use std::time::Instant;
use tcpdiag_core::decode::{decode, Decoded};

fn unhex(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let nib = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
    b.chunks_exact(2)
        .map(|p| nib(p[0]) << 4 | nib(p[1]))
        .collect()
}

fn bench(n: u64) {
    // Ethernet / IPv4 / TCP with timestamps, 100 bytes of payload on the wire, 66 captured.
    let frame = unhex(concat!(
        "000c29aabbcc000c29ddeeff0800",
        "450000bc1c4640004006b1e6c0a80001c0a80002",
        "c35001bb000003e8000007d0801801f5fe300000",
        "0101080a0001e2400001e23f"
    ));
    let mut acc = 0u64;
    let start = Instant::now();
    for i in 0..n {
        let data = std::hint::black_box(&frame[..]);
        if let Decoded::Tcp(seg) = decode(1, data, 166 + (i as u32 & 1)) {
            acc = acc.wrapping_add(seg.seq as u64 + seg.payload_len as u64);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} frames in {secs:.3} s = {:.1} M frames/s (checksum {acc})",
        n as f64 / secs / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--bench" {
        return bench(args[2].parse().expect("N"));
    }
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line.expect("stdin");
        let mut it = line.split_whitespace();
        let (Some(lt), Some(orig)) = (it.next(), it.next()) else {
            continue;
        };
        let data = unhex(it.next().unwrap_or(""));
        let r = decode(
            lt.parse().unwrap_or(u32::MAX),
            &data,
            orig.parse().unwrap_or(0),
        );
        match r {
            Decoded::Tcp(s) => writeln!(
                out,
                "tcp\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                s.src.to_ip(),
                s.dst.to_ip(),
                s.sport,
                s.dport,
                s.seq,
                s.ack,
                s.payload_len,
                s.flags,
                s.window,
                s.tunnel_depth
            ),
            Decoded::Other { layer, reason } => writeln!(out, "other\t{layer:?}\t{reason:?}"),
        }
        .expect("stdout");
    }
}
