//! Shared test helpers: corpus location, a minimal pcapng EPB reader, and a builder of
//! synthetic ETL files (header buffer + event buffers, optionally LZ77-compressed).
#![allow(dead_code)]

use std::path::PathBuf;

use tcpdiag_etl::{EtlFrame, EtlReader, ObservationFilter, ReaderOptions};

/// `/work/shared/corpus/etl`, resolved from the crate; `None` (test skips) when absent.
pub fn corpus_dir() -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/etl");
    d.is_dir().then_some(d)
}

pub fn all_frames(r: &mut EtlReader<impl std::io::Read + std::io::Seek>) -> (Vec<EtlFrame>, Option<tcpdiag_core::ingest::IngestError>) {
    let mut v = Vec::new();
    loop {
        match r.next_frame() {
            Ok(Some(f)) => v.push(f),
            Ok(None) => return (v, None),
            Err(e) => return (v, Some(e)),
        }
    }
}

pub fn every_copy() -> ReaderOptions {
    ReaderOptions { observation: ObservationFilter::All, ..ReaderOptions::default() }
}

/// (timestamp in µs, original length, data) of every Enhanced Packet Block.
/// Only what the reference file uses: little-endian, default µs resolution.
pub fn pcapng_packets(b: &[u8]) -> Vec<(u64, u32, Vec<u8>)> {
    let u32at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let mut out = Vec::new();
    let mut at = 0;
    while at + 12 <= b.len() {
        let (ty, len) = (u32at(at), u32at(at + 4) as usize);
        if ty == 6 {
            let ts = (u32at(at + 12) as u64) << 32 | u32at(at + 16) as u64;
            let (cap, orig) = (u32at(at + 20) as usize, u32at(at + 24));
            out.push((ts, orig, b[at + 28..at + 28 + cap].to_vec()));
        }
        at += len;
    }
    out
}

// ---- synthetic ETL files -------------------------------------------------------

pub const PERF_FREQ: i64 = 10_000_000;
/// 2024-06-10T20:18:35Z as FILETIME.
pub const START_FT: i64 = 133_624_981_150_000_000;
pub const START_QPC: i64 = 5_000_000;

fn wmi_buffer_header(size: u32, saved: u32, proc_: u8, flags: u16, ty: u16) -> Vec<u8> {
    let mut h = vec![0u8; 0x48];
    h[0..4].copy_from_slice(&size.to_le_bytes());
    h[4..8].copy_from_slice(&saved.to_le_bytes());
    h[0x28] = proc_;
    h[0x2C..0x30].copy_from_slice(&3u32.to_le_bytes());
    h[0x30..0x34].copy_from_slice(&saved.to_le_bytes());
    h[0x34..0x36].copy_from_slice(&flags.to_le_bytes());
    h[0x36..0x38].copy_from_slice(&ty.to_le_bytes());
    h
}

fn pad8(v: &mut Vec<u8>) {
    while !v.len().is_multiple_of(8) {
        v.push(0);
    }
}

/// The first buffer: a SYSTEM64 record (HookId 0) with a 64-bit TRACE_LOGFILE_HEADER.
pub fn header_buffer(buffer_size: u32, buffers_written: u32, events_lost: u32, buffers_lost: u32) -> Vec<u8> {
    header_buffer_with(buffer_size, buffers_written, events_lost, buffers_lost, Clock::Qpc, true)
}

/// `ReservedFlags` clock types, with the raw value the header event carries.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// QueryPerformanceCounter at [`PERF_FREQ`]; header event at [`START_QPC`].
    Qpc,
    /// FILETIMEs; header event at [`START_FT`].
    SystemTime,
    /// CPU cycles at [`CPU_MHZ`] MHz; header event at [`START_QPC`].
    CpuCycle,
}

pub const CPU_MHZ: u32 = 2_500;

impl Clock {
    pub fn base(self) -> i64 {
        match self {
            Clock::SystemTime => START_FT,
            _ => START_QPC,
        }
    }
}

/// The header buffer for any clock and pointer width (32-bit: SYSTEM32 record and the
/// TRACE_LOGFILE_HEADER with 4-byte name pointers, 8 bytes shorter).
pub fn header_buffer_with(buffer_size: u32, buffers_written: u32, events_lost: u32, buffers_lost: u32, clock: Clock, ptr64: bool) -> Vec<u8> {
    let shift = if ptr64 { 8 } else { 0 };
    let mut p = vec![0u8; 0x110 + shift];
    p[0..4].copy_from_slice(&buffer_size.to_le_bytes());
    p[4] = 10;
    p[0x0C..0x10].copy_from_slice(&2u32.to_le_bytes());
    p[0x24..0x28].copy_from_slice(&buffers_written.to_le_bytes());
    p[0x2C..0x30].copy_from_slice(&(if ptr64 { 8u32 } else { 4 }).to_le_bytes());
    p[0x30..0x34].copy_from_slice(&events_lost.to_le_bytes());
    p[0x34..0x38].copy_from_slice(&CPU_MHZ.to_le_bytes());
    let tail = 0xF0 + shift;
    p[tail + 8..tail + 16].copy_from_slice(&PERF_FREQ.to_le_bytes());
    p[tail + 16..tail + 24].copy_from_slice(&START_FT.to_le_bytes());
    let kind: u32 = match clock {
        Clock::Qpc => 1,
        Clock::SystemTime => 2,
        Clock::CpuCycle => 3,
    };
    p[tail + 24..tail + 28].copy_from_slice(&kind.to_le_bytes());
    p[tail + 28..tail + 32].copy_from_slice(&buffers_lost.to_le_bytes());
    p.extend("Test\0".encode_utf16().flat_map(|u| u.to_le_bytes()));
    let mut rec = vec![0u8; 0x20];
    rec[0..2].copy_from_slice(&2u16.to_le_bytes());
    rec[2] = if ptr64 { 0x02 } else { 0x01 };
    rec[3] = 0xC0;
    rec[4..6].copy_from_slice(&((0x20 + p.len()) as u16).to_le_bytes());
    rec[0x10..0x18].copy_from_slice(&clock.base().to_le_bytes());
    rec.extend_from_slice(&p);
    pad8(&mut rec);
    let mut b = wmi_buffer_header(buffer_size, (0x48 + rec.len()) as u32, 0, 0, 4);
    b.extend_from_slice(&rec);
    b.resize(buffer_size as usize, 0xFF);
    b
}

/// An EVENT_HEADER64 record.
pub fn event_record(provider: tcpdiag_etl::Guid, id: u16, keyword: u64, qpc: i64, pid: u32, tid: u32, payload: &[u8]) -> Vec<u8> {
    event_record_with(provider, id, keyword, qpc, pid, tid, payload, true)
}

/// An EVENT_HEADER record of a 32- or 64-bit writer (header type 0x12 / 0x13).
#[allow(clippy::too_many_arguments)]
pub fn event_record_with(provider: tcpdiag_etl::Guid, id: u16, keyword: u64, qpc: i64, pid: u32, tid: u32, payload: &[u8], ptr64: bool) -> Vec<u8> {
    let mut r = vec![0u8; 0x50];
    r[2] = if ptr64 { 0x13 } else { 0x12 };
    r[3] = 0xC0;
    r[8..12].copy_from_slice(&tid.to_le_bytes());
    r[12..16].copy_from_slice(&pid.to_le_bytes());
    r[16..24].copy_from_slice(&qpc.to_le_bytes());
    r[24..40].copy_from_slice(&provider.0);
    r[40..42].copy_from_slice(&id.to_le_bytes());
    r[48..56].copy_from_slice(&keyword.to_le_bytes());
    r.extend_from_slice(payload);
    let n = r.len() as u16;
    r[0..2].copy_from_slice(&n.to_le_bytes());
    r
}

/// A buffer of `records` for processor `proc_`; compressed with Plain LZ77 if asked.
pub fn event_buffer(records: &[Vec<u8>], proc_: u8, compressed: bool, buffer_size: u32) -> Vec<u8> {
    let mut data = Vec::new();
    for r in records {
        data.extend_from_slice(r);
        pad8(&mut data);
    }
    let saved = (0x48 + data.len()) as u32;
    if compressed {
        let c = tcpdiag_etl::xpress::compress_lz77(&data);
        let mut b = wmi_buffer_header((0x48 + c.len()) as u32, saved, proc_, 0x40, 0);
        b.extend_from_slice(&c);
        b
    } else {
        assert!(saved <= buffer_size);
        let mut b = wmi_buffer_header(buffer_size, saved, proc_, 0, 0);
        b.extend_from_slice(&data);
        b.resize(buffer_size as usize, 0);
        b
    }
}

/// A relogger schema event (EventMetadata class type 32) holding a `TRACE_EVENT_INFO`
/// for (provider, id, version); properties are (name, in-type, flags, count, length).
pub fn schema_record(provider: tcpdiag_etl::Guid, id: u16, version: u8, props: &[(&str, u16, u32, u16, u16)]) -> Vec<u8> {
    schema_record_task(provider, id, version, "", props)
}

/// `schema_record` with a task name (the event's name, e.g. `TcpDataTransferSend`).
pub fn schema_record_task(provider: tcpdiag_etl::Guid, id: u16, version: u8, task: &str, props: &[(&str, u16, u32, u16, u16)]) -> Vec<u8> {
    let mut t = vec![0u8; 112 + 24 * props.len()];
    if !task.is_empty() {
        let off = t.len() as u32;
        t[68..72].copy_from_slice(&off.to_le_bytes());
        t.extend(task.encode_utf16().chain([0]).flat_map(|u| u.to_le_bytes()));
        t[68..72].copy_from_slice(&off.to_le_bytes());
    }
    t[0..16].copy_from_slice(&provider.0);
    t[32..34].copy_from_slice(&id.to_le_bytes());
    t[34] = version;
    t[100..104].copy_from_slice(&(props.len() as u32).to_le_bytes());
    t[104..108].copy_from_slice(&(props.len() as u32).to_le_bytes());
    for (i, (name, ty, flags, count, length)) in props.iter().enumerate() {
        let name_off = t.len() as u32;
        t.extend(name.encode_utf16().chain([0]).flat_map(|u| u.to_le_bytes()));
        let at = 112 + 24 * i;
        t[at..at + 4].copy_from_slice(&flags.to_le_bytes());
        t[at + 4..at + 8].copy_from_slice(&name_off.to_le_bytes());
        t[at + 8..at + 10].copy_from_slice(&ty.to_le_bytes());
        t[at + 16..at + 18].copy_from_slice(&count.to_le_bytes());
        t[at + 18..at + 20].copy_from_slice(&length.to_le_bytes());
    }
    let mut r = vec![0u8; 0x30];
    r[2] = 0x14;
    r[3] = 0xC0;
    r[4] = 32;
    r[16..24].copy_from_slice(&START_QPC.to_le_bytes());
    r[24..40].copy_from_slice(&tcpdiag_etl::schema::EVENT_METADATA.0);
    r.extend_from_slice(&t);
    let n = r.len() as u16;
    r[0..2].copy_from_slice(&n.to_le_bytes());
    r
}
