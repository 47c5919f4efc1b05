//! Writes a synthetic capture for benchmarks: N frames of L bytes, 1 µs apart.
//! `cargo run --release -p tcpdiag-core --example synth_capture -- OUT {pcap|pcapng} N L`

use std::fs::File;
use std::io::BufWriter;

use tcpdiag_core::ingest::{InterfaceInfo, PcapWriter, PcapngWriter};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: synth_capture OUT pcap|pcapng FRAMES LEN");
        std::process::exit(2);
    }
    let frames: u64 = args[3].parse().expect("FRAMES");
    let len: usize = args[4].parse().expect("LEN");
    let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
    let out = BufWriter::with_capacity(1 << 20, File::create(&args[1]).expect("create OUT"));
    let t0 = 1_700_000_000_000_000_000i64;
    match args[2].as_str() {
        "pcap" => {
            let mut w = PcapWriter::new(out, 1, 65535, false).unwrap();
            for i in 0..frames {
                w.write_packet(t0 + i as i64 * 1_000, &data, len as u32)
                    .unwrap();
            }
        }
        _ => {
            let mut w = PcapngWriter::new(out).unwrap();
            w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
            for i in 0..frames {
                w.write_packet(0, t0 + i as i64 * 1_000, &data, len as u32, None)
                    .unwrap();
            }
        }
    }
}
