//! Builds the scale benchmarks' captures from real ones, streaming (memory does not grow
//! with the output). IPv4 addresses, ports and sequence numbers are rewritten in place;
//! checksums are left as captured (tcpdiag does not check them).
//!
//! `scale_capture scan TEMPLATE OUT FLOWS` — a SYN scan: the first SYN, SYN/ACK and ACK of
//!   TEMPLATE (a real handshake) become, for flow i, SYN, SYN/ACK, RST|ACK from client
//!   10.200.(i/60000 / 256).(i/60000 % 256):(1024 + i % 60000), ISN shifted by i × 7919, flow
//!   i starting at i × 10 µs: ~3 M packets for 1 M flows, a few hundred flows overlapping.
//! `scale_capture repeat SOURCE OUT GIGABYTES` — SOURCE (real flows) copied one after the
//!   other until OUT reaches the size: copy k is shifted by k × (duration + 10 ms) and its
//!   10.a.b.c addresses become 10.(a+k/256).(k%256).c, so the file grows while the number of
//!   concurrent flows stays that of SOURCE.
//!
//! `cargo run --release -p tcpdiag-core --example scale_capture -- scan samples/clean_bulk.sender.pcap.gz scan-1m.pcap 1000000`

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use tcpdiag_core::ingest::{CaptureReader, PcapWriter};

/// Offset of the IP header in the frame for the link types the templates use.
fn ip_offset(linktype: u32, data: &[u8]) -> Option<usize> {
    let off = match linktype {
        101 | 228 => 0,
        1 => 14,
        113 => 16,
        276 => 20,
        _ => return None,
    };
    (data.len() > off + 40 && data[off] >> 4 == 4).then_some(off)
}

fn frames(path: &Path) -> Vec<(i64, u32, u32, Vec<u8>)> {
    let mut r = CaptureReader::open(path).expect("open source");
    let mut v = Vec::new();
    while let Ok(Some(f)) = r.next_frame() {
        v.push((f.ts_ns, f.origlen, f.linktype, f.data.to_vec()));
    }
    v
}

fn scan(template: &Path, out: &Path, n: u64) {
    let src = frames(template);
    // The handshake: first SYN, the SYN/ACK, and the ACK after it.
    let flags = |d: &[u8], lt| ip_offset(lt, d).map(|o| d[o + ((d[o] & 0x0f) as usize) * 4 + 13]);
    let find = |want: u8| src.iter().find(|(_, _, lt, d)| flags(d, *lt) == Some(want)).expect("handshake in template").clone();
    let (syn, synack, ack) = (find(0x02), find(0x12), find(0x10));
    let lt = syn.2;
    let mut w = PcapWriter::new(BufWriter::with_capacity(1 << 20, File::create(out).unwrap()), lt, 262_144, false).unwrap();
    let t0 = syn.0;
    let rtt = synack.0 - syn.0;
    let mut pending: std::collections::VecDeque<(i64, Vec<u8>, u32)> = std::collections::VecDeque::new();
    for i in 0..n {
        let start = t0 + i as i64 * 10_000;
        let client = [10u8, 200, ((i / 60000) / 256) as u8, ((i / 60000) % 256) as u8];
        let port = (1024 + i % 60000) as u16;
        let shift = (i as u32).wrapping_mul(7919);
        for (k, (tmpl, ts)) in [(&syn, start), (&synack, start + rtt), (&ack, start + rtt + rtt / 10)].into_iter().enumerate() {
            let mut d = tmpl.3.clone();
            let o = ip_offset(lt, &d).unwrap();
            let t = o + ((d[o] & 0x0f) as usize) * 4;
            let from_client = k != 1;
            let (ip_at, port_at) = if from_client { (o + 12, t) } else { (o + 16, t + 2) };
            d[ip_at..ip_at + 4].copy_from_slice(&client);
            d[port_at..port_at + 2].copy_from_slice(&port.to_be_bytes());
            let (seq_at, ack_at) = (t + 4, t + 8);
            let at = if from_client { seq_at } else { ack_at };
            let v = u32::from_be_bytes(d[at..at + 4].try_into().unwrap()).wrapping_add(shift);
            d[at..at + 4].copy_from_slice(&v.to_be_bytes());
            if k == 2 {
                d[t + 13] = 0x14; // the scanner aborts: RST|ACK instead of the ACK
            }
            pending.push_back((ts, d, tmpl.1));
        }
        // Frames of later flows never precede `start`: flush what is due, in time order.
        pending.make_contiguous().sort_by_key(|x| x.0);
        while pending.front().is_some_and(|x| x.0 <= start) {
            let (ts, d, orig) = pending.pop_front().unwrap();
            w.write_packet(ts, &d, orig.max(d.len() as u32)).unwrap();
        }
    }
    for (ts, d, orig) in pending {
        w.write_packet(ts, &d, orig.max(d.len() as u32)).unwrap();
    }
}

fn repeat(source: &Path, out: &Path, gigabytes: f64) {
    let limit = (gigabytes * 1e9) as u64;
    let mut r0 = CaptureReader::open(source).expect("open source");
    let first = r0.next_frame().unwrap().expect("frames in source");
    let lt = first.linktype;
    let t_first = first.ts_ns;
    drop(r0);
    let mut w = PcapWriter::new(BufWriter::with_capacity(4 << 20, File::create(out).unwrap()), lt, 262_144, true).unwrap();
    let (mut written, mut k, mut offset) = (24u64, 0u32, 0i64);
    while written < limit {
        let mut r = CaptureReader::open(source).unwrap();
        let mut last = t_first;
        let mut buf = Vec::new();
        while let Ok(Some(f)) = r.next_frame() {
            last = last.max(f.ts_ns);
            buf.clear();
            buf.extend_from_slice(f.data);
            if let Some(o) = ip_offset(lt, &buf) {
                for at in [o + 12, o + 16] {
                    if buf[at] == 10 {
                        buf[at + 1] = buf[at + 1].wrapping_add((k / 256) as u8);
                        buf[at + 2] = (k % 256) as u8;
                    }
                }
            }
            w.write_packet(f.ts_ns + offset, &buf, f.origlen).unwrap();
            written += 16 + buf.len() as u64;
            if written >= limit {
                break;
            }
        }
        offset += last - t_first + 10_000_000;
        k += 1;
    }
    eprintln!("{written} bytes, {k} copies");
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    match a.get(1).map(String::as_str) {
        Some("scan") if a.len() == 5 => scan(Path::new(&a[2]), Path::new(&a[3]), a[4].parse().expect("FLOWS")),
        Some("repeat") if a.len() == 5 => repeat(Path::new(&a[2]), Path::new(&a[3]), a[4].parse().expect("GIGABYTES")),
        _ => {
            eprintln!("usage: scale_capture scan TEMPLATE OUT FLOWS | repeat SOURCE OUT GIGABYTES");
            std::process::exit(2);
        }
    }
}
