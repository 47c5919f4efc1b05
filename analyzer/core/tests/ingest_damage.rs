//! Inputs that are not (whole) captures: empty, foreign magic, and every truncation length
//! of small pcap, pcapng and gzip files. Never a panic; always frames then a clean error.

mod common;

use std::io::Cursor;

use common::{drain_with, gzip, packet, read_all, Owned};
use tcpdiag_core::ingest::{
    CaptureReader, FrameOptions, IngestErrorKind, InterfaceInfo, PcapWriter, PcapngWriter,
};

fn small_pcap() -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new(), 1, 65535, true).unwrap();
    for i in 0..3u8 {
        w.write_packet(i as i64 * 1_000, &packet(i, 20 + i as usize), 60)
            .unwrap();
    }
    w.into_inner()
}

fn small_pcapng() -> Vec<u8> {
    let mut w = PcapngWriter::new(Vec::new()).unwrap();
    let mut iface = InterfaceInfo::new(1, 0);
    iface.name = Some("eth0".into());
    w.add_interface(&iface).unwrap();
    w.write_block(4, &[0, 0, 0, 0]).unwrap();
    let opts = FrameOptions {
        comments: vec!["c".into()],
        flags: Some(1),
        ..Default::default()
    };
    w.write_packet(0, 1_000, &packet(1, 21), 60, Some(&opts))
        .unwrap();
    w.write_simple_packet(&packet(2, 5), 5).unwrap();
    w.write_obsolete_packet(0, 3_000, &packet(3, 7), 7, Some(1))
        .unwrap();
    w.into_inner()
}

/// Every prefix reads as a prefix of the whole file's frames, ending cleanly (only at a
/// record boundary) or with `Truncated`.
fn check_every_prefix(file: &[u8], gzipped: bool) {
    let (all, err) = read_all(file);
    assert_eq!(err, None);
    for n in 0..file.len() {
        let (frames, err): (Vec<Owned>, _) = read_all(&file[..n]);
        assert_eq!(frames[..], all[..frames.len()], "prefix {n}");
        match err.map(|e| e.kind) {
            None => assert!(
                !gzipped && frames.len() < all.len(),
                "prefix {n} read cleanly"
            ),
            Some(IngestErrorKind::Empty) => assert_eq!(n, 0),
            Some(IngestErrorKind::Truncated { needed, available }) => {
                assert!(available < needed, "prefix {n}")
            }
            Some(k) => panic!("prefix {n}: {k}"),
        }
    }
}

#[test]
fn pcap_every_truncation_length_is_frames_then_truncated() {
    check_every_prefix(&small_pcap(), false);
}

#[test]
fn pcapng_every_truncation_length_is_frames_then_truncated() {
    check_every_prefix(&small_pcapng(), false);
}

#[test]
fn gzip_every_truncation_length_is_frames_then_truncated() {
    check_every_prefix(&gzip(&small_pcapng()), true);
    check_every_prefix(&gzip(&small_pcap()), true);
}

#[test]
fn empty_input_is_empty() {
    assert_eq!(read_all(&[]).1.unwrap().kind, IngestErrorKind::Empty);
}

#[test]
fn gzip_of_nothing_is_empty() {
    assert_eq!(read_all(&gzip(&[])).1.unwrap().kind, IngestErrorKind::Empty);
}

#[test]
fn foreign_magic_is_not_a_capture() {
    let err = read_all(b"GIF89a......").1.unwrap();
    assert_eq!(err.kind, IngestErrorKind::NotACapture { magic: *b"GIF8" });
    let err = read_all(b"hi").1.unwrap();
    assert_eq!(
        err.kind,
        IngestErrorKind::NotACapture {
            magic: [b'h', b'i', 0, 0]
        }
    );
}

#[test]
fn cut_magic_is_truncated() {
    let err = read_all(&[0xd4, 0xc3]).1.unwrap();
    assert_eq!(
        err.kind,
        IngestErrorKind::Truncated {
            needed: 4,
            available: 2
        }
    );
}

#[test]
fn snoop_version_7_is_unsupported() {
    let err = read_all(b"snoop\0\0\0\0\0\0\x07\0\0\0\x04").1.unwrap();
    assert!(matches!(err.kind, IngestErrorKind::Unsupported(m) if m.contains("snoop version 7")));
}

#[test]
fn gzip_of_foreign_data_is_not_a_capture() {
    let err = read_all(&gzip(b"hello world")).1.unwrap();
    assert_eq!(err.kind, IngestErrorKind::NotACapture { magic: *b"hell" });
}

#[test]
fn gzip_with_damaged_deflate_data_is_corrupt() {
    let mut gz = gzip(&small_pcapng());
    for b in &mut gz[10..30] {
        *b = 0xff;
    }
    let err = read_all(&gz).1.unwrap();
    assert!(
        matches!(
            err.kind,
            IngestErrorKind::Corrupt(_) | IngestErrorKind::Truncated { .. }
        ),
        "{err}"
    );
}

#[test]
fn open_missing_file_is_io() {
    let path = std::path::Path::new("/nonexistent/tcpdiag/x.pcap");
    let err = tcpdiag_core::ingest::CaptureReader::open(path)
        .err()
        .unwrap();
    assert!(matches!(err.kind, IngestErrorKind::Io(_)));
}

/// The scan loop's inline read of a buffered pcap record gives the frames and the error
/// `next_frame` gives, cut anywhere.
#[test]
fn pcap_prefix_reads_alike_inline_and_through_next_frame() {
    let file = small_pcap();
    for n in 0..=file.len() {
        let open = || CaptureReader::from_read(Box::new(Cursor::new(file[..n].to_vec())));
        let (Ok(mut a), Ok(mut b)) = (open(), open()) else { continue };
        let plain = drain_with(&mut a, CaptureReader::next_frame);
        let inline = drain_with(&mut b, CaptureReader::next_frame_inline);
        assert_eq!(plain, inline, "prefix {n}");
    }
}
