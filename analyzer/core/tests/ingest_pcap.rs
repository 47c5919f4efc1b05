//! Classic pcap: writer round-trips in both byte orders and both resolutions, and the
//! header and record rules checked against what tshark 4.0 does.

mod common;

use std::io::Cursor;

use common::{packet, read_all};
use tcpdiag_core::ingest::byte_order::ByteOrder;
use tcpdiag_core::ingest::{CaptureReader, FormatKind, IngestErrorKind, PcapWriter, TsResolution};

const TS: i64 = 1_700_000_000_123_456_789;

fn pcap_file(nanos: bool, order: ByteOrder) -> Vec<u8> {
    let mut w = PcapWriter::with_byte_order(Vec::new(), 1, 65535, nanos, order).unwrap();
    w.write_packet(TS, &packet(1, 60), 60).unwrap();
    w.write_packet(TS + 1_000_000, &packet(2, 100), 1514)
        .unwrap();
    w.write_packet(TS + 2_000_000, &[], 0).unwrap();
    w.into_inner()
}

/// Hand-built file header: magic, version, thiszone, snaplen and link-type fields.
fn header(
    order: ByteOrder,
    magic: u32,
    major: u16,
    minor: u16,
    thiszone: i32,
    linktype: u32,
) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend(order.put_u32(magic));
    h.extend(order.put_u16(major));
    h.extend(order.put_u16(minor));
    h.extend(order.put_u32(thiszone as u32));
    h.extend(order.put_u32(0));
    h.extend(order.put_u32(65535));
    h.extend(order.put_u32(linktype));
    h
}

fn record(order: ByteOrder, sec: u32, frac: u32, incl: u32, orig: u32, data: &[u8]) -> Vec<u8> {
    let mut r = Vec::new();
    for v in [sec, frac, incl, orig] {
        r.extend(order.put_u32(v));
    }
    r.extend_from_slice(data);
    r
}

#[test]
fn pcap_each_variant_round_trips() {
    for nanos in [false, true] {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let file = pcap_file(nanos, order);
            let mut r = CaptureReader::from_read(Box::new(Cursor::new(file.clone()))).unwrap();
            let want = FormatKind::Pcap {
                nanos,
                big_endian: order == ByteOrder::Big,
                modified: false,
            };
            assert_eq!(r.format().kind, want);
            assert!(!r.format().compressed);
            let iface = &r.interfaces()[0];
            assert_eq!((iface.linktype, iface.snaplen), (1, 65535));
            let res = if nanos {
                TsResolution::NANOS
            } else {
                TsResolution::MICROS
            };
            assert_eq!(iface.ts_resolution, res);
            let (frames, err) = common::drain(&mut r);
            assert_eq!(err, None);
            assert_eq!(r.input_bytes_read(), file.len() as u64);
            let cut = if nanos { 0 } else { 789 };
            assert_eq!(frames.len(), 3);
            assert_eq!(frames[0].ts_ns, TS - cut);
            assert_eq!(frames[1].ts_ns, TS + 1_000_000 - cut);
            assert_eq!(frames[1].data, packet(2, 100));
            assert_eq!((frames[1].origlen, frames[1].number), (1514, 2));
            assert_eq!(frames[2].data, Vec::<u8>::new());
            assert!(frames
                .iter()
                .all(|f| f.options.is_none() && f.linktype == 1));
        }
    }
}

#[test]
fn pcap_hand_written_big_endian_file_reads() {
    let o = ByteOrder::Big;
    let mut f = header(o, 0xa1b2_c3d4, 2, 4, 0, 1);
    f.extend(record(o, 1, 5, 4, 60, &[1, 2, 3, 4]));
    assert_eq!(&f[..4], &[0xa1, 0xb2, 0xc3, 0xd4]);
    let (frames, err) = read_all(&f);
    assert_eq!(err, None);
    assert_eq!(frames[0].ts_ns, 1_000_005_000);
    assert_eq!(
        (frames[0].data.as_slice(), frames[0].origlen),
        (&[1, 2, 3, 4][..], 60)
    );
}

#[test]
fn pcap_version_2_2_record_swaps_lengths() {
    // Before 2.3 the record said orig_len first; tshark shows len 80, cap_len 60.
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_c3d4, 2, 2, 0, 1);
    f.extend(record(o, 1, 0, 80, 60, &packet(0, 60)));
    let (frames, err) = read_all(&f);
    assert_eq!(err, None);
    assert_eq!((frames[0].data.len(), frames[0].origlen), (60, 80));
}

#[test]
fn pcap_version_2_3_record_swaps_only_when_incl_exceeds_orig() {
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_c3d4, 2, 3, 0, 1);
    f.extend(record(o, 1, 0, 80, 60, &packet(0, 60)));
    f.extend(record(o, 1, 0, 60, 80, &packet(0, 60)));
    let (frames, err) = read_all(&f);
    assert_eq!(err, None);
    assert!(frames.iter().all(|f| (f.data.len(), f.origlen) == (60, 80)));
}

#[test]
fn pcap_version_2_4_record_keeps_incl_above_orig() {
    // tshark 4.0 shows frame.len 40, frame.cap_len 60.
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_c3d4, 2, 4, 0, 1);
    f.extend(record(o, 1, 0, 60, 40, &packet(0, 60)));
    let (frames, _) = read_all(&f);
    assert_eq!((frames[0].data.len(), frames[0].origlen), (60, 40));
}

#[test]
fn pcap_version_1_header_is_unsupported() {
    let f = header(ByteOrder::Little, 0xa1b2_c3d4, 1, 0, 0, 1);
    let (_, err) = read_all(&f);
    assert!(matches!(err.unwrap().kind, IngestErrorKind::Unsupported(_)));
}

#[test]
fn pcap_thiszone_is_ignored_like_tshark() {
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_c3d4, 2, 4, 3600, 1);
    f.extend(record(o, 1000, 5, 1, 1, &[0]));
    assert_eq!(read_all(&f).0[0].ts_ns, 1_000_000_005_000);
}

#[test]
fn pcap_fcs_bits_are_masked_from_linktype() {
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_c3d4, 2, 4, 0, 1 | 0x0400_0000 | 2 << 28);
    f.extend(record(o, 1, 5, 1, 1, &[0]));
    let r = CaptureReader::from_read(Box::new(Cursor::new(f.clone()))).unwrap();
    assert_eq!(r.interfaces()[0].linktype, 1);
    assert_eq!(r.interfaces()[0].fcs_len, Some(4));
    assert_eq!(read_all(&f).0[0].linktype, 1);
}

#[test]
fn pcap_modified_magic_record_skips_extra_header() {
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_cd34, 2, 4, 0, 1);
    let mut rec = record(o, 1, 5, 2, 2, &[]);
    rec.extend([9; 8]); // ifindex, protocol, pkt_type, pad
    rec.extend([0xaa, 0xbb]);
    f.extend(rec);
    let (frames, err) = read_all(&f);
    assert_eq!(err, None);
    assert_eq!(frames[0].data, vec![0xaa, 0xbb]);
}

#[test]
fn pcap_record_over_256k_is_corrupt() {
    // tshark: "pcap: File has 300000-byte packet, bigger than maximum of 262144".
    let o = ByteOrder::Little;
    let mut f = header(o, 0xa1b2_c3d4, 2, 4, 0, 1);
    f.extend(record(o, 1, 0, 60, 60, &packet(0, 60)));
    f.extend(record(o, 1, 0, 300_000, 300_000, &[]));
    let (frames, err) = read_all(&f);
    let err = err.unwrap();
    assert_eq!(frames.len(), 1);
    assert!(
        matches!(&err.kind, IngestErrorKind::Corrupt(m) if m.contains("300000")),
        "{err}"
    );
    assert_eq!((err.offset, err.frames_read), (24 + 76, 1));
}

#[test]
fn pcap_record_cut_short_is_truncated_at_record_start() {
    let f = pcap_file(false, ByteOrder::Little);
    let cut = &f[..24 + 76 + 50];
    let (frames, err) = read_all(cut);
    assert_eq!(frames.len(), 1);
    let err = err.unwrap();
    assert_eq!(
        err.kind,
        IngestErrorKind::Truncated {
            needed: 116,
            available: 50
        }
    );
    assert_eq!((err.offset, err.frames_read), (100, 1));
}
