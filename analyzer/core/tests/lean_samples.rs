//! `decode::lean` over the real captures in `samples/`: every frame the lean path
//! accepts carries the flows-table fields the full decoder gives it. The samples are raw
//! IP (link type 101), which lean leaves to the full decoder, so each packet is put in an
//! Ethernet II header first, the frame the flows path meets on most captures.

use tcpdiag_core::decode::{decode_into, lean, linktype, TcpSegment};
use tcpdiag_core::ingest::CaptureReader;

mod common;
use common::samples;

/// Ethernet II (MACs, EtherType by IP version) around a raw IP packet.
fn in_ethernet(ip: &[u8]) -> Vec<u8> {
    let ethertype: u16 = if ip.first().map(|b| b >> 4) == Some(6) { 0x86dd } else { 0x0800 };
    let mut f = vec![0x00, 0x0c, 0x29, 0xdd, 0xee, 0xff, 0x00, 0x0c, 0x29, 0xaa, 0xbb, 0xcc];
    f.extend(ethertype.to_be_bytes());
    f.extend(ip);
    f
}

/// What the flows table reads of a segment.
fn flow_fields(s: &TcpSegment) -> impl PartialEq + std::fmt::Debug {
    (s.src, s.dst, s.sport, s.dport, s.seq, s.ack, s.flags, s.payload_len, s.in_icmp_error)
}

#[test]
fn lean_equals_full_on_every_sample_frame_it_accepts() {
    let (mut accepted, mut frames) = (0u64, 0u64);
    for path in samples() {
        let mut r = CaptureReader::open(&path).unwrap();
        // One segment reused frame after frame, as the flows path does.
        let mut lean_seg = TcpSegment::default();
        while let Some(f) = r.next_frame().unwrap() {
            frames += 1;
            assert_eq!(f.linktype, linktype::RAW, "{}: samples are raw IP", path.display());
            let (data, origlen) = (in_ethernet(f.data), f.origlen + 14);
            if !lean::flow_fields(linktype::ETHERNET, &data, origlen, &mut lean_seg) {
                continue;
            }
            accepted += 1;
            let mut full = TcpSegment::default();
            let what = || format!("{} frame {}", path.display(), f.number);
            decode_into(linktype::ETHERNET, &data, origlen, &mut full).unwrap_or_else(|e| panic!("{}: full decoder: {e:?}", what()));
            assert_eq!(flow_fields(&lean_seg), flow_fields(&full), "{}", what());
        }
    }
    // Most frames of the IPv4 samples are established-state segments.
    assert!(frames > 0 && accepted * 2 > frames, "lean accepted {accepted} of {frames} frames");
}
