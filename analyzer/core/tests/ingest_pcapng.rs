//! pcapng: writer round-trips, timestamp units, sections, the packet block variants, the
//! blocks that are skipped, and block-length damage (rules checked against tshark 4.0).

mod common;

use std::io::Cursor;

use common::{gzip, packet, read_all};
use tcpdiag_core::ingest::byte_order::ByteOrder;
use tcpdiag_core::ingest::{
    CaptureReader, FormatKind, FrameOptions, IngestErrorKind, InterfaceInfo, PcapngWriter,
    TsResolution,
};

const TS: i64 = 1_700_000_000_123_456_789;

fn writer() -> PcapngWriter<Vec<u8>> {
    PcapngWriter::new(Vec::new()).unwrap()
}

fn named(linktype: u32, name: &str) -> InterfaceInfo {
    let mut i = InterfaceInfo::new(linktype, 262144);
    i.name = Some(name.into());
    i.description = Some(format!("{name} description"));
    i
}

fn every_option() -> FrameOptions {
    FrameOptions {
        comments: vec!["first".into(), "zweite — ünïcode".into()],
        flags: Some(0x0000_0001),
        drop_count: Some(7),
        packet_id: Some(0x1122_3344_5566_7788),
        queue: Some(3),
        verdicts: vec![vec![0, 1, 2, 3, 4, 5, 6, 7, 8]],
    }
}

#[test]
fn pcapng_writer_round_trips_interfaces_and_options() {
    let mut w = writer();
    let eth = w.add_interface(&named(1, "eth0")).unwrap();
    let mut raw = named(101, "tun0");
    raw.ts_resolution = TsResolution::NANOS;
    let tun = w.add_interface(&raw).unwrap();
    let opts = every_option();
    w.write_packet(eth, TS, &packet(1, 61), 1514, Some(&opts))
        .unwrap();
    w.write_packet(tun, TS + 5, &packet(2, 40), 40, None)
        .unwrap();
    let file = w.into_inner();

    let mut r = CaptureReader::from_read(Box::new(Cursor::new(file.clone()))).unwrap();
    assert_eq!(r.format().kind, FormatKind::Pcapng);
    // Known before the first frame.
    assert_eq!(r.interfaces(), &[named(1, "eth0"), raw.clone()]);
    let (frames, err) = common::drain(&mut r);
    assert_eq!(err, None);
    assert_eq!(r.input_bytes_read(), file.len() as u64);
    assert_eq!(frames.len(), 2);
    assert_eq!(
        (frames[0].ts_ns, frames[0].origlen, frames[0].linktype),
        (TS - 789, 1514, 1)
    );
    assert_eq!(frames[0].data, packet(1, 61));
    assert_eq!(frames[0].options.as_ref(), Some(&opts));
    assert_eq!(
        (frames[1].number, frames[1].interface, frames[1].linktype),
        (2, 1, 101)
    );
    assert_eq!(
        (frames[1].ts_ns, frames[1].options.as_ref()),
        (TS + 5, None)
    );
}

fn one_packet_with(res: TsResolution, offset_s: i64, ts_ns: i64) -> i64 {
    let mut w = writer();
    let mut iface = InterfaceInfo::new(1, 0);
    iface.ts_resolution = res;
    iface.ts_offset_s = offset_s;
    w.add_interface(&iface).unwrap();
    w.write_packet(0, ts_ns, &[0; 4], 4, None).unwrap();
    let (frames, err) = read_all(&w.into_inner());
    assert_eq!(err, None);
    frames[0].ts_ns
}

#[test]
fn pcapng_tsresol_milliseconds_truncates_to_ms() {
    assert_eq!(
        one_packet_with(TsResolution::Pow10(3), 0, TS),
        1_700_000_000_123_000_000
    );
}

#[test]
fn pcapng_tsresol_nanoseconds_is_exact() {
    assert_eq!(one_packet_with(TsResolution::Pow10(9), 0, TS), TS);
}

#[test]
fn pcapng_tsresol_power_of_two_truncates_like_wireshark() {
    // 2^-20 s ticks: tshark shows 3 s + 1 tick as 3.000000953.
    let ticks_ns = one_packet_with(TsResolution::Pow2(20), 0, 3_000_000_954);
    assert_eq!(ticks_ns, 3_000_000_953);
    let back = one_packet_with(TsResolution::Pow2(20), 0, TS);
    assert!((TS - back) < 954 && back <= TS);
}

#[test]
fn pcapng_tsresol_finer_than_nanoseconds_divides_down() {
    // Picoseconds since the epoch overflow a u64 after 213 days: use a small time.
    assert_eq!(
        one_packet_with(TsResolution::Pow10(12), 0, 1_234_567_890_123),
        1_234_567_890_123
    );
}

#[test]
fn pcapng_tsoffset_adds_seconds() {
    // tshark: ticks 5_000_000 µs with if_tsoffset 100 → 105.000000000.
    assert_eq!(
        one_packet_with(TsResolution::MICROS, 100, 105_000_000_000),
        105_000_000_000
    );
    assert_eq!(
        one_packet_with(TsResolution::MICROS, 1_600_000_000, TS),
        TS - 789
    );
}

#[test]
fn pcapng_second_section_switches_byte_order() {
    let mut w = writer();
    w.add_interface(&named(1, "le0")).unwrap();
    w.write_packet(0, 1_000_000_000, &packet(1, 10), 10, None)
        .unwrap();
    w.new_section(ByteOrder::Big).unwrap();
    w.add_interface(&named(101, "be0")).unwrap();
    w.add_interface(&named(1, "be1")).unwrap();
    w.write_packet(1, 2_000_000_000, &packet(2, 10), 10, Some(&every_option()))
        .unwrap();
    w.write_packet(0, 3_000_000_000, &packet(3, 10), 10, None)
        .unwrap();
    let (frames, err) = read_all(&w.into_inner());
    assert_eq!(err, None);
    // Interfaces numbered across sections: be0 is 1, be1 is 2.
    let got: Vec<_> = frames
        .iter()
        .map(|f| (f.number, f.interface, f.linktype, f.ts_ns))
        .collect();
    assert_eq!(
        got,
        [
            (1, 0, 1, 1_000_000_000),
            (2, 2, 1, 2_000_000_000),
            (3, 1, 101, 3_000_000_000)
        ]
    );
    assert_eq!(frames[1].options, Some(every_option()));
}

#[test]
fn pcapng_big_endian_first_section_reads() {
    let mut w = PcapngWriter::with_byte_order(Vec::new(), ByteOrder::Big).unwrap();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    w.write_packet(0, TS, &packet(9, 33), 60, None).unwrap();
    let file = w.into_inner();
    assert_eq!(&file[8..12], &[0x1a, 0x2b, 0x3c, 0x4d]);
    let mut r = CaptureReader::from_read(Box::new(Cursor::new(file))).unwrap();
    assert_eq!(r.interfaces()[0].section, 0);
    let f = r.next_frame().unwrap().unwrap();
    assert_eq!(
        (f.ts_ns, f.data, f.origlen),
        (TS - 789, &packet(9, 33)[..], 60)
    );
}

#[test]
fn pcapng_sections_record_their_interfaces() {
    let mut w = writer();
    w.add_interface(&named(1, "a")).unwrap();
    w.new_section(ByteOrder::Little).unwrap();
    w.add_interface(&named(1, "b")).unwrap();
    w.write_packet(0, 0, &[1], 1, None).unwrap();
    let mut r = CaptureReader::from_read(Box::new(Cursor::new(w.into_inner()))).unwrap();
    assert_eq!(r.next_frame().unwrap().unwrap().interface, 1);
    let sections: Vec<_> = r.interfaces().iter().map(|i| i.section).collect();
    assert_eq!(sections, [0, 1]);
}

#[test]
fn pcapng_simple_packet_cuts_to_snaplen() {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 30)).unwrap();
    w.write_simple_packet(&packet(1, 30), 60).unwrap();
    w.write_simple_packet(&packet(2, 3), 3).unwrap();
    let (frames, err) = read_all(&w.into_inner());
    assert_eq!(err, None);
    // tshark: no time, len 60 cap 30; then 3/3.
    assert_eq!(
        (frames[0].data.len(), frames[0].origlen, frames[0].ts_ns),
        (30, 60, 0)
    );
    assert_eq!(
        (frames[1].data.clone(), frames[1].origlen),
        (packet(2, 3), 3)
    );
}

#[test]
fn pcapng_simple_packet_too_short_for_its_data_is_corrupt() {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    w.write_simple_packet(&packet(1, 40), 60).unwrap();
    let err = read_all(&w.into_inner()).1.unwrap();
    assert!(
        matches!(&err.kind, IngestErrorKind::Corrupt(m) if m.contains("Simple Packet Block")),
        "{err}"
    );
}

#[test]
fn pcapng_simple_packet_before_any_interface_is_corrupt() {
    let mut w = writer();
    w.write_simple_packet(&packet(1, 4), 4).unwrap();
    assert!(matches!(
        read_all(&w.into_inner()).1.unwrap().kind,
        IngestErrorKind::Corrupt(_)
    ));
}

#[test]
fn pcapng_obsolete_packet_block_reads_with_drop_count() {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    w.write_obsolete_packet(0, 7_000, &packet(1, 60), 60, Some(5))
        .unwrap();
    w.write_obsolete_packet(0, 8_000, &packet(1, 61), 61, None)
        .unwrap();
    let (frames, err) = read_all(&w.into_inner());
    assert_eq!(err, None);
    assert_eq!((frames[0].ts_ns, frames[0].data.len()), (7_000, 60));
    assert_eq!(
        frames[0].options.as_ref().and_then(|o| o.drop_count),
        Some(5)
    );
    assert_eq!(frames[1].options, None);
}

#[test]
fn pcapng_skipped_blocks_leave_numbering_like_tshark() {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    w.write_block(4, &[0, 0, 0, 0]).unwrap(); // NRB
    w.write_packet(0, 1_000, &[1], 1, None).unwrap();
    w.write_block(5, &[0; 12]).unwrap(); // ISB
    w.write_block(10, b"KLSTabcd").unwrap(); // DSB
    w.write_block(0x12345, b"abcd").unwrap(); // unknown
    w.write_packet(0, 2_000, &[2], 1, None).unwrap();
    // tshark 4.0 numbers custom blocks as frames of their own.
    w.write_block(0xbad, &[0, 0, 0x7e, 0xd9, 1, 2, 3, 4])
        .unwrap();
    w.write_packet(0, 3_000, &[3], 1, None).unwrap();
    let (frames, err) = read_all(&w.into_inner());
    assert_eq!(err, None);
    let numbers: Vec<_> = frames.iter().map(|f| (f.number, f.data[0])).collect();
    assert_eq!(numbers, [(1, 1), (2, 2), (4, 3)]);
}

#[test]
fn pcapng_packet_naming_unknown_interface_is_corrupt() {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    w.write_packet(0, 0, &[1], 1, None).unwrap();
    let mut file = w.into_inner();
    let at = file.len() - 36 + 8; // interface id of the last (36-byte) EPB
    file[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
    let (frames, err) = read_all(&file);
    assert_eq!(frames.len(), 0);
    let err = err.unwrap();
    assert!(
        matches!(&err.kind, IngestErrorKind::Corrupt(m) if m.contains("interface 1")),
        "{err}"
    );
}

/// SHB + IDB (both 28/20 bytes) and one EPB of 4 data bytes (36 bytes) at offset 48.
fn small_file() -> Vec<u8> {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    w.write_packet(0, 0, &[1, 2, 3, 4], 4, None).unwrap();
    w.write_packet(0, 0, &[5, 6, 7, 8], 4, None).unwrap();
    w.into_inner()
}
const EPB_AT: usize = 48;

fn corrupt_message(file: &[u8]) -> String {
    match read_all(file).1.map(|e| e.kind) {
        Some(IngestErrorKind::Corrupt(m)) => m,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn pcapng_block_length_damage_is_corrupt_and_named() {
    let base = small_file();
    assert_eq!(base.len(), EPB_AT + 72);
    let set = |at: usize, v: u32| {
        let mut f = base.clone();
        f[at..at + 4].copy_from_slice(&v.to_le_bytes());
        f
    };
    for (file, want) in [
        (
            set(EPB_AT + 4, 8),
            "Enhanced Packet Block total length 8 is below the minimum 32",
        ),
        (
            set(EPB_AT + 4, 38),
            "Enhanced Packet Block total length 38 is not a multiple of 4",
        ),
        (
            set(EPB_AT + 4, 0x7fff_fff0),
            "Enhanced Packet Block total length 2147483632 exceeds",
        ),
        (
            set(EPB_AT + 32, 40),
            "Enhanced Packet Block trailing total length 40 differs from the leading 36",
        ),
        (
            set(EPB_AT + 20, 9),
            "Enhanced Packet Block captured length 9 exceeds the 4 bytes",
        ),
        (
            set(28 + 4, 12),
            "Interface Description Block total length 12 is below the minimum 20",
        ),
        (
            set(4, 30),
            "Section Header Block total length 30 is not a multiple of 4",
        ),
    ] {
        let m = corrupt_message(&file);
        assert!(m.starts_with(want), "{m}");
    }
}

#[test]
fn pcapng_skipped_block_with_bad_trailer_is_corrupt() {
    let mut w = writer();
    w.write_block(0x12345, b"abcd").unwrap();
    let mut file = w.into_inner();
    let n = file.len();
    file[n - 4] = 99;
    assert!(corrupt_message(&file).contains("block of type 0x00012345 trailing total length 99"));
}

#[test]
fn pcapng_option_running_past_block_is_corrupt() {
    // tshark: "pcapng: Not enough data to handle option of length 200".
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    let mut body = vec![0u8; 20];
    body[12] = 4; // caplen
    body[16] = 4; // origlen
    body.extend([1, 2, 3, 4]);
    body.extend([1, 0, 200, 0, b'x', 0, 0, 0]);
    w.write_block(6, &body).unwrap();
    assert!(corrupt_message(&w.into_inner()).contains("option 1 of length 200"));
}

#[test]
fn pcapng_version_2_section_is_unsupported() {
    let mut file = small_file();
    file[12] = 2;
    let err = read_all(&file).1.unwrap();
    assert!(matches!(err.kind, IngestErrorKind::Unsupported(_)));
}

#[test]
fn pcapng_bad_byte_order_magic_is_corrupt() {
    let mut file = small_file();
    file[8] = 0;
    assert!(corrupt_message(&file).contains("byte-order magic"));
}

#[test]
fn gzip_pcapng_reads_and_counts_compressed_bytes() {
    let plain = small_file();
    let gz = gzip(&plain);
    let mut r = CaptureReader::from_read(Box::new(Cursor::new(gz.clone()))).unwrap();
    assert!(r.format().compressed);
    assert_eq!(r.format().kind, FormatKind::Pcapng);
    let (frames, err) = common::drain(&mut r);
    assert_eq!((frames.len(), err), (2, None));
    assert_eq!(r.input_bytes_read(), gz.len() as u64);
}

#[test]
fn gzip_concatenated_members_read_as_one_stream() {
    let plain = small_file();
    let (a, b) = plain.split_at(EPB_AT + 10);
    let mut gz = gzip(a);
    gz.extend(gzip(b));
    let (frames, err) = read_all(&gz);
    assert_eq!((frames.len(), err), (2, None));
}

#[test]
fn gzip_cut_short_gives_frames_then_truncated() {
    let mut w = writer();
    w.add_interface(&InterfaceInfo::new(1, 0)).unwrap();
    for i in 0..2000u32 {
        w.write_packet(0, i as i64, &packet(i as u8, 100), 100, None)
            .unwrap();
    }
    let gz = gzip(&w.into_inner());
    let (frames, err) = read_all(&gz[..gz.len() / 2]);
    assert!(!frames.is_empty() && frames.len() < 2000);
    let err = err.unwrap();
    assert!(
        matches!(err.kind, IngestErrorKind::Truncated { .. }),
        "{err}"
    );
    assert_eq!(err.frames_read, frames.len() as u64);
}
