//! Damaged input never panics: every prefix of a trace, random byte mutations of the
//! container and of compressed streams. Damage is reported after the readable frames.

mod common;

use std::io::Cursor;

use common::*;
use tcpdiag_core::ingest::IngestErrorKind;
use tcpdiag_etl::builtin::PKTMON;
use tcpdiag_etl::xpress::{compress_lz77, decompress_lz77};
use tcpdiag_etl::EtlReader;

/// A small PktMon trace: two CPUs, one compressed buffer, four packets.
fn small_trace() -> Vec<u8> {
    let pkt = |qpc: i64, group: u64| {
        let mut p = Vec::new();
        p.extend_from_slice(&group.to_le_bytes());
        for v in [1u16, 1, 3, 1, 7, 1, 0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(&[0; 8]);
        let frame: Vec<u8> = (0..60u8).collect();
        p.extend_from_slice(&60u16.to_le_bytes());
        p.extend_from_slice(&60u16.to_le_bytes());
        p.extend_from_slice(&frame);
        event_record(PKTMON, 160, 0x10, qpc, 4, 8, &p)
    };
    let mut f = header_buffer(1024, 3, 0, 0);
    f.extend(event_buffer(&[pkt(START_QPC + 10, 1), pkt(START_QPC + 30, 3)], 1, true, 0));
    f.extend(event_buffer(&[pkt(START_QPC + 20, 2), pkt(START_QPC + 40, 4)], 2, false, 1024));
    f
}

fn read_all(bytes: Vec<u8>) -> Result<(usize, Option<tcpdiag_core::ingest::IngestError>), tcpdiag_core::ingest::IngestError> {
    let mut r = EtlReader::from_reader(Cursor::new(bytes), every_copy())?;
    let (v, e) = all_frames(&mut r);
    Ok((v.len(), e))
}

#[test]
fn small_trace_merges_two_processors_in_time_order() {
    let mut r = EtlReader::from_reader(Cursor::new(small_trace()), every_copy()).unwrap();
    let (v, e) = all_frames(&mut r);
    assert_eq!(e, None);
    assert_eq!(v.iter().map(|f| f.packet_id.unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let start_ns = (START_FT - tcpdiag_etl::logfile::FILETIME_UNIX_EPOCH) * 100;
    assert_eq!(v[0].ts_ns, start_ns + 1_000); // 10 ticks at 10 MHz
    assert_eq!((v[0].process_id, v[0].thread_id, v[0].frame().linktype), (4, 8, 1));
    assert_eq!(r.stats().compressed_buffers, 1);
}

#[test]
fn every_prefix_reads_or_fails_cleanly() {
    let full = small_trace();
    for n in 0..full.len() {
        match read_all(full[..n].to_vec()) {
            Ok((frames, err)) => {
                // A cut inside a buffer: earlier buffers still read, then Truncated.
                if n > 1024 {
                    assert!(matches!(err.as_ref().map(|e| &e.kind), Some(IngestErrorKind::Truncated { .. })), "prefix {n}: {err:?}");
                    assert_eq!(err.unwrap().frames_read as usize, frames);
                }
            }
            Err(e) => {
                if n == 0 {
                    assert_eq!(e.kind, IngestErrorKind::Empty);
                }
            }
        }
    }
}

#[test]
fn corpus_prefixes_never_panic() {
    let Some(dir) = corpus_dir() else { return };
    let full = std::fs::read(dir.join("pktmon_demikernel_icmp.etl")).unwrap();
    let mut n = 0;
    while n < full.len() {
        let _ = read_all(full[..n].to_vec());
        n += if n < 1200 { 1 } else { 97 };
    }
    // Cut in the last buffer: the frames of the complete buffers survive.
    let (frames, err) = read_all(full[..full.len() - 100].to_vec()).unwrap();
    assert!(frames > 0 && frames <= 114, "{frames}");
    assert!(matches!(err.unwrap().kind, IngestErrorKind::Truncated { .. }));
}

/// xorshift64*: fixed seed, so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn random_mutations_of_the_container_never_panic() {
    let mut rng = Rng(0x5EED_E71E);
    let mut bases = vec![small_trace()];
    if let Some(dir) = corpus_dir() {
        bases.push(std::fs::read(dir.join("pktmon_demikernel_icmp.etl")).unwrap());
    }
    for base in &bases {
        for _ in 0..300 {
            let mut b = base.clone();
            for _ in 0..1 + rng.next() % 8 {
                let at = (rng.next() % b.len() as u64) as usize;
                b[at] = rng.next() as u8;
            }
            let _ = read_all(b);
        }
    }
}

#[test]
fn random_mutations_of_compressed_streams_never_panic() {
    let mut rng = Rng(42);
    let data: Vec<u8> = (0..20_000u32).map(|i| ((i % 97) ^ (i / 300)) as u8).collect();
    let c = compress_lz77(&data);
    let mut out = Vec::new();
    for _ in 0..2000 {
        let mut m = c.clone();
        for _ in 0..1 + rng.next() % 4 {
            let at = (rng.next() % m.len() as u64) as usize;
            m[at] = rng.next() as u8;
        }
        let cut = (rng.next() % (m.len() as u64 + 1)) as usize;
        if decompress_lz77(&m[..cut], data.len(), &mut out).is_ok() {
            assert!(out.len() <= data.len());
        }
    }
}

#[test]
fn lost_events_and_buffers_are_reported() {
    let mut f = header_buffer(1024, 2, 7, 2);
    f.extend(event_buffer(&[], 0, false, 1024));
    let r = EtlReader::from_reader(Cursor::new(f), every_copy()).unwrap();
    let s = r.stats();
    assert_eq!((s.events_lost, s.buffers_lost), (7, 2));
}

#[test]
fn not_an_etl_file_is_named_by_its_magic() {
    let e = read_all(b"\xd4\xc3\xb2\xa1 pcap file, not etl........................................................".to_vec()).unwrap_err();
    assert_eq!(e.kind, IngestErrorKind::NotACapture { magic: [0xd4, 0xc3, 0xb2, 0xa1] });
}
