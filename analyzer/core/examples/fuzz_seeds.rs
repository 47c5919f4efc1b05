//! Writes the fuzz seed corpus (`fuzz/seeds/ingest/`): tiny captures, one per format
//! feature, each under 2 KB. Run from the repository root:
//! `cargo run -p tcpdiag-core --example fuzz_seeds`.

use std::io::Write;
use std::path::Path;

use tcpdiag_core::ingest::byte_order::ByteOrder;
use tcpdiag_core::ingest::{FrameOptions, InterfaceInfo, PcapWriter, PcapngWriter, TsResolution};

fn packet(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add(i as u8)).collect()
}

fn pcap(nanos: bool, order: ByteOrder) -> Vec<u8> {
    let mut w = PcapWriter::with_byte_order(Vec::new(), 1, 96, nanos, order).unwrap();
    w.write_packet(1_000_000_123, &packet(1, 54), 54).unwrap();
    w.write_packet(1_000_500_000, &packet(2, 60), 1514).unwrap();
    w.into_inner()
}

fn pcapng_features() -> Vec<u8> {
    let mut w = PcapngWriter::new(Vec::new()).unwrap();
    let mut eth = InterfaceInfo::new(1, 128);
    eth.name = Some("eth0".into());
    eth.ts_resolution = TsResolution::Pow2(20);
    eth.ts_offset_s = 10;
    w.add_interface(&eth).unwrap();
    let mut raw = InterfaceInfo::new(101, 0);
    raw.ts_resolution = TsResolution::NANOS;
    w.add_interface(&raw).unwrap();
    let opts = FrameOptions {
        comments: vec!["seed".into()],
        flags: Some(1),
        drop_count: Some(2),
        packet_id: Some(3),
        queue: Some(4),
        verdicts: vec![vec![1, 0, 0, 0, 0, 0, 0, 0, 0]],
    };
    w.write_packet(0, 20_000_000_000, &packet(3, 40), 40, Some(&opts))
        .unwrap();
    w.write_packet(1, 20_000_000_001, &packet(4, 20), 20, None)
        .unwrap();
    w.write_simple_packet(&packet(5, 16), 16).unwrap();
    w.write_obsolete_packet(0, 21_000_000_000, &packet(6, 8), 8, Some(1))
        .unwrap();
    w.write_block(4, &[0, 0, 0, 0]).unwrap();
    w.write_block(0xbad, &[0, 0, 0x7e, 0xd9, 1, 2, 3, 4])
        .unwrap();
    w.new_section(ByteOrder::Big).unwrap();
    w.add_interface(&InterfaceInfo::new(113, 0)).unwrap();
    w.write_packet(0, 22_000_000_000, &packet(7, 30), 30, None)
        .unwrap();
    w.into_inner()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn main() {
    let dir = Path::new("fuzz/seeds/ingest");
    std::fs::create_dir_all(dir).unwrap();
    let ng = pcapng_features();
    let seeds = [
        ("pcap_us_le.pcap", pcap(false, ByteOrder::Little)),
        ("pcap_ns_be.pcap", pcap(true, ByteOrder::Big)),
        ("pcapng_features.pcapng", ng.clone()),
        ("pcapng_features.pcapng.gz", gzip(&ng)),
        (
            "pcap_truncated.pcap",
            pcap(false, ByteOrder::Little)[..70].to_vec(),
        ),
    ];
    for (name, bytes) in seeds {
        assert!(bytes.len() <= 2048, "{name} is {} bytes", bytes.len());
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}
