//! Test traces written like tcpdump lines, turned into a raw-IP pcap held in memory.
//!
//! One line per packet: time in ms, `>` (client → server) or `<` (server → client), the
//! flags (`S`, `SA`, `A`, `PA`, `FA`, `R`), then `key value` pairs: `seq` and `ack`
//! (relative to each side's ISN, as Wireshark shows them), `len` (payload bytes), `win`,
//! `id` (IPv4 identification), `ttl`, `tos`, `ts` (TSval), `mss`, `ws` (window scale),
//! `sack L-R` (relative, the peer's numbers). The same lines seen at another point are the
//! same [`Point`] with other addresses, ISNs or clock: a NAT or an ISN-randomising box.

use crate::decode::flags;
use crate::ingest::{CaptureReader, FrameSource};

/// Where a trace was captured: the endpoints as seen there, the ISNs, the clock.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    pub client: ([u8; 4], u16),
    pub server: ([u8; 4], u16),
    pub isn_client: u32,
    pub isn_server: u32,
    /// Added to every time: this capture's clock minus true time, ms.
    pub clock_ms: f64,
}

impl Point {
    pub const CLIENT: Point = Point {
        client: ([10, 0, 0, 1], 40_000),
        server: ([10, 0, 0, 2], 80),
        isn_client: 1_000,
        isn_server: 900_000,
        clock_ms: 0.0,
    };
}

/// The pcap bytes (raw IPv4, ns stamps) of `lines` seen at `at`.
pub fn pcap(at: &Point, lines: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for w in [0xa1b2_3c4d_u32, 0x0004_0002, 0, 0, 65_535, 101] {
        if w == 0x0004_0002 {
            out.extend_from_slice(&2u16.to_le_bytes());
            out.extend_from_slice(&4u16.to_le_bytes());
        } else {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    for line in lines {
        let (t_ms, pkt) = packet(at, line);
        let t_ns = ((t_ms + at.clock_ms) * 1e6).round() as i64 + 1_700_000_000_000_000_000;
        out.extend_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
        out.extend_from_slice(&((t_ns % 1_000_000_000) as u32).to_le_bytes());
        out.extend_from_slice(&(pkt.len() as u32).to_le_bytes());
        out.extend_from_slice(&(pkt.len() as u32).to_le_bytes());
        out.extend_from_slice(&pkt);
    }
    out
}

/// A frame source reading `lines` seen at `at`.
pub fn source(at: &Point, lines: &[&str]) -> Box<dyn FrameSource> {
    let bytes = pcap(at, lines);
    Box::new(CaptureReader::from_read(Box::new(std::io::Cursor::new(bytes))).expect("a valid pcap"))
}

fn packet(at: &Point, line: &str) -> (f64, Vec<u8>) {
    let mut words = line.split_whitespace();
    let t_ms: f64 = words.next().and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("time in {line:?}"));
    let to_server = match words.next() {
        Some(">") => true,
        Some("<") => false,
        _ => panic!("direction in {line:?}"),
    };
    let mut fl = 0u16;
    for c in words.next().unwrap_or_else(|| panic!("flags in {line:?}")).chars() {
        fl |= match c {
            'S' => flags::SYN,
            'A' => flags::ACK,
            'P' => flags::PSH,
            'F' => flags::FIN,
            'R' => flags::RST,
            _ => panic!("flag {c} in {line:?}"),
        };
    }
    let (mut seq, mut ack, mut len, mut win, mut id, mut ttl, mut tos) = (0u32, 0u32, 0u32, 1000u16, 0u16, 64u8, 0u8);
    let (mut ts, mut mss, mut ws, mut sack) = (None, None, None, Vec::new());
    while let Some(k) = words.next() {
        let v = words.next().unwrap_or_else(|| panic!("value of {k} in {line:?}"));
        let n = || v.parse::<u32>().unwrap_or_else(|_| panic!("{k} {v} in {line:?}"));
        match k {
            "seq" => seq = n(),
            "ack" => ack = n(),
            "len" => len = n(),
            "win" => win = n() as u16,
            "id" => id = n() as u16,
            "ttl" => ttl = n() as u8,
            "tos" => tos = n() as u8,
            "ts" => ts = Some(n()),
            "mss" => mss = Some(n() as u16),
            "ws" => ws = Some(n() as u8),
            "sack" => {
                let (l, r) = v.split_once('-').unwrap_or_else(|| panic!("sack {v} in {line:?}"));
                sack.push((l.parse::<u32>().unwrap(), r.parse::<u32>().unwrap()));
            }
            _ => panic!("key {k} in {line:?}"),
        }
    }
    let (src, dst, isn_own, isn_peer) = if to_server {
        (at.client, at.server, at.isn_client, at.isn_server)
    } else {
        (at.server, at.client, at.isn_server, at.isn_client)
    };
    let mut opts = Vec::new();
    if let Some(m) = mss {
        opts.extend_from_slice(&[2, 4]);
        opts.extend_from_slice(&m.to_be_bytes());
    }
    if let Some(w) = ws {
        opts.extend_from_slice(&[1, 3, 3, w]);
    }
    if let Some(t) = ts {
        opts.extend_from_slice(&[1, 1, 8, 10]);
        opts.extend_from_slice(&t.to_be_bytes());
        opts.extend_from_slice(&0u32.to_be_bytes());
    }
    if !sack.is_empty() {
        opts.extend_from_slice(&[1, 1, 5, 2 + 8 * sack.len() as u8]);
        for (l, r) in &sack {
            opts.extend_from_slice(&isn_peer.wrapping_add(*l).to_be_bytes());
            opts.extend_from_slice(&isn_peer.wrapping_add(*r).to_be_bytes());
        }
    }
    while opts.len() % 4 != 0 {
        opts.push(1);
    }
    let tcp_len = 20 + opts.len();
    let total = 20 + tcp_len + len as usize;
    let mut p = Vec::with_capacity(total);
    p.extend_from_slice(&[0x45, tos]);
    p.extend_from_slice(&(total as u16).to_be_bytes());
    p.extend_from_slice(&id.to_be_bytes());
    p.extend_from_slice(&[0x40, 0, ttl, 6, 0, 0]);
    p.extend_from_slice(&src.0);
    p.extend_from_slice(&dst.0);
    let sum = checksum(&p[..20]);
    p[10..12].copy_from_slice(&sum.to_be_bytes());
    p.extend_from_slice(&src.1.to_be_bytes());
    p.extend_from_slice(&dst.1.to_be_bytes());
    p.extend_from_slice(&isn_own.wrapping_add(seq).to_be_bytes());
    let raw_ack = if fl & flags::ACK != 0 { isn_peer.wrapping_add(ack) } else { 0 };
    p.extend_from_slice(&raw_ack.to_be_bytes());
    p.push(((tcp_len / 4) as u8) << 4);
    p.push(fl as u8);
    p.extend_from_slice(&win.to_be_bytes());
    p.extend_from_slice(&[0, 0, 0, 0]);
    p.extend_from_slice(&opts);
    p.resize(total, 0);
    (t_ms, p)
}

fn checksum(b: &[u8]) -> u16 {
    let mut s: u32 = b.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}
