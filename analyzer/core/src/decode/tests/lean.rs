//! `decode::lean` against the full decoder: for every frame it either declines or writes
//! exactly the fields the full decoder writes (addresses, ports, seq, ack, flags, payload
//! length, not quoted in ICMP), and it never accepts a frame the full decoder rejects.

use super::build::*;
use crate::decode::{decode_into, flags, lean, linktype as lt, Addr, TcpSegment};

const IP_AT: usize = 14;
const TCP_AT: usize = 14 + 20;

/// What the flows table reads of a segment.
#[derive(Debug, PartialEq, Eq)]
struct FlowFields {
    src: Addr,
    dst: Addr,
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u16,
    payload_len: u32,
    in_icmp_error: bool,
}

impl FlowFields {
    fn of(s: &TcpSegment) -> FlowFields {
        FlowFields {
            src: s.src,
            dst: s.dst,
            sport: s.sport,
            dport: s.dport,
            seq: s.seq,
            ack: s.ack,
            flags: s.flags,
            payload_len: s.payload_len,
            in_icmp_error: s.in_icmp_error,
        }
    }
}

/// A segment left over from an earlier frame: every field differs from what any frame
/// here decodes to, so a field lean forgets to write shows.
fn stale() -> TcpSegment {
    TcpSegment {
        src: Addr::v4([10, 9, 9, 9]),
        dst: Addr::v4([10, 8, 8, 8]),
        sport: 7,
        dport: 8,
        seq: 0xdead_beef,
        ack: 0xfeed_face,
        flags: 0xfff,
        payload_len: 0xabcd,
        in_icmp_error: true,
        ..TcpSegment::default()
    }
}

/// Runs both paths; panics if lean accepts and disagrees (or accepts what full rejects).
/// Returns whether lean accepted.
fn lean_agrees(linktype: u32, data: &[u8], origlen: u32, what: impl Fn() -> String) -> bool {
    let mut lean_seg = stale();
    if !lean::flow_fields(linktype, data, origlen, &mut lean_seg) {
        return false;
    }
    let mut full_seg = stale();
    match decode_into(linktype, data, origlen, &mut full_seg) {
        Ok(()) => assert_eq!(FlowFields::of(&lean_seg), FlowFields::of(&full_seg), "{}", what()),
        Err(stop) => panic!("{}: lean accepted what the full decoder rejects ({stop:?})", what()),
    }
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lean {
    Accepts,
    Declines,
}
use Lean::*;

/// IPv4 with a header of `options.len()` extra bytes (IHL > 5), correct total length.
fn ipv4_with_options(options: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut h = ipv4(6, &cat(&[options, payload]));
    h[0] = 0x45 + (options.len() / 4) as u8;
    h
}

/// The reference frame with one change applied.
fn with(change: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut f = eth_v4_tcp();
    change(&mut f);
    f
}

fn set16(f: &mut [u8], at: usize, v: u16) {
    f[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// SACK block after NOP, NOP, timestamps: NOP, NOP, SACK (one block).
const TS_SACK_OPTIONS: [u8; 24] = [
    1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 10, 0, 0, 0x03, 0xe8, 0, 0, 0x07, 0xd0,
];

/// Rule, link type, frame, wire length (None: the captured length), what lean does.
type Case = (&'static str, u32, Vec<u8>, Option<u32>, Lean);

fn cases() -> Vec<Case> {
    let eth_tcp = |options: &[u8], fl: u16, len: usize| ethernet(0x0800, &ipv4(6, &tcp_with(options, fl, len)));
    let bare_ack = eth_tcp(&[], flags::ACK, 0);
    let mut padded = bare_ack.clone();
    padded.resize(60, 0); // Ethernet minimum frame without FCS
    let mut padded_one_byte = eth_tcp(&[], flags::ACK | flags::PSH, 1);
    padded_one_byte.resize(60, 0);
    vec![
        ("data_with_timestamps", lt::ETHERNET, eth_v4_tcp(), None, Accepts),
        ("no_options", lt::ETHERNET, eth_tcp(&[], flags::ACK | flags::PSH, 100), None, Accepts),
        ("sack_and_timestamps", lt::ETHERNET, eth_tcp(&TS_SACK_OPTIONS, flags::ACK, 0), None, Accepts),
        ("zero_payload_ack", lt::ETHERNET, bare_ack, None, Accepts),
        ("fin_ack", lt::ETHERNET, eth_tcp(&TS_OPTIONS, flags::FIN | flags::ACK, 0), None, Accepts),
        ("fin_with_data", lt::ETHERNET, eth_tcp(&TS_OPTIONS, flags::FIN | flags::ACK | flags::PSH, 7), None, Accepts),
        ("rst", lt::ETHERNET, eth_tcp(&[], flags::RST, 0), None, Accepts),
        ("rst_ack", lt::ETHERNET, eth_tcp(&[], flags::RST | flags::ACK, 0), None, Accepts),
        ("every_flag_but_syn", lt::ETHERNET, eth_tcp(&[], 0xfff & !flags::SYN, 3), None, Accepts),
        ("syn", lt::ETHERNET, eth_tcp(&[2, 4, 5, 0xb4], flags::SYN, 0), None, Declines),
        ("syn_ack", lt::ETHERNET, eth_tcp(&[2, 4, 5, 0xb4], flags::SYN | flags::ACK, 0), None, Declines),
        ("syn_with_data", lt::ETHERNET, eth_tcp(&[], flags::SYN | flags::ACK, 5), None, Declines),
        ("vlan_8021q", lt::ETHERNET, ethernet(0x8100, &tag([0, 5, 0x08, 0x00], &ipv4(6, &tcp(100)))), None, Declines),
        ("ipv6", lt::ETHERNET, ethernet(0x86dd, &ipv6(6, &tcp(100))), None, Declines),
        ("udp", lt::ETHERNET, ethernet(0x0800, &ipv4(17, &udp(1, 2, &[0; 40]))), None, Declines),
        ("raw_ipv4_link", lt::RAW, ipv4(6, &tcp(100)), None, Declines),
        ("ipv4_options_ihl_6", lt::ETHERNET, ethernet(0x0800, &ipv4_with_options(&[1, 1, 1, 0], &tcp(100))), None, Accepts),
        (
            "ipv4_options_ihl_15",
            lt::ETHERNET,
            ethernet(0x0800, &ipv4_with_options(&[1; 40], &tcp_with(&[], flags::ACK, 9))),
            None,
            Accepts,
        ),
        ("ipv4_ihl_4", lt::ETHERNET, with(|f| f[IP_AT] = 0x44), None, Declines),
        ("ipv4_version_5", lt::ETHERNET, with(|f| f[IP_AT] = 0x55), None, Declines),
        ("first_fragment_mf", lt::ETHERNET, with(|f| set16(f, IP_AT + 6, 0x2000)), None, Declines),
        ("later_fragment_offset", lt::ETHERNET, with(|f| set16(f, IP_AT + 6, 0x0001)), None, Declines),
        ("last_fragment_offset", lt::ETHERNET, with(|f| set16(f, IP_AT + 6, 0x00b9)), None, Declines),
        ("dont_fragment_only", lt::ETHERNET, with(|f| set16(f, IP_AT + 6, 0x4000)), None, Accepts),
        ("reserved_flag_only", lt::ETHERNET, with(|f| set16(f, IP_AT + 6, 0x8000)), None, Accepts),
        ("tcp_data_offset_4", lt::ETHERNET, with(|f| f[TCP_AT + 12] = 0x40 | (f[TCP_AT + 12] & 0x0f)), None, Declines),
        ("tcp_data_offset_0", lt::ETHERNET, with(|f| f[TCP_AT + 12] &= 0x0f), None, Declines),
        // 32-byte header + 100 payload: offset 15 (60 bytes) still fits in the IP payload.
        ("tcp_data_offset_15_within_payload", lt::ETHERNET, with(|f| f[TCP_AT + 12] |= 0xf0), None, Accepts),
        ("tcp_data_offset_beyond_ip_payload", lt::ETHERNET, with(|f| {
            f[TCP_AT + 12] |= 0xf0;
            set16(f, IP_AT + 2, 20 + 56);
        }), None, Declines),
        ("tcp_data_offset_equals_ip_payload", lt::ETHERNET, with(|f| {
            f[TCP_AT + 12] |= 0xf0;
            set16(f, IP_AT + 2, 20 + 60);
        }), None, Accepts),
        ("tcp_options_beyond_snaplen", lt::ETHERNET, with(|f| f[TCP_AT + 12] |= 0xf0)[..TCP_AT + 40].to_vec(), Some(166), Accepts),
        ("ip_total_len_shorter_than_frame", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 20 + 32 + 60)), None, Accepts),
        ("ip_total_len_equals_headers", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 20 + 32)), None, Accepts),
        ("ip_total_len_cuts_tcp_options", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 20 + 24)), None, Declines),
        ("ip_total_len_cuts_fixed_tcp", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 20 + 19)), None, Declines),
        ("ip_total_len_below_ihl", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 19)), None, Declines),
        ("ip_total_len_longer_than_frame", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 1500)), None, Accepts),
        ("ip_total_len_longer_than_wire", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 1500)), Some(200), Accepts),
        ("ip_total_len_zero_tso", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 0)), None, Accepts),
        ("ip_total_len_zero_tso_cut", lt::ETHERNET, with(|f| set16(f, IP_AT + 2, 0))[..TCP_AT + 32].to_vec(), Some(9014), Accepts),
        ("headers_only_snaplen", lt::ETHERNET, eth_v4_tcp()[..TCP_AT + 32].to_vec(), Some(166), Accepts),
        ("options_cut_by_snaplen", lt::ETHERNET, eth_v4_tcp()[..TCP_AT + 24].to_vec(), Some(166), Accepts),
        ("fixed_tcp_cut_by_snaplen", lt::ETHERNET, eth_v4_tcp()[..TCP_AT + 19].to_vec(), Some(166), Declines),
        ("wire_len_below_captured", lt::ETHERNET, eth_v4_tcp(), Some(10), Accepts),
        ("ethernet_padding_empty_ack", lt::ETHERNET, padded, None, Accepts),
        ("ethernet_padding_one_byte_payload", lt::ETHERNET, padded_one_byte, None, Accepts),
        ("other_ip_protocol", lt::ETHERNET, with(|f| f[IP_AT + 9] = 17), None, Declines),
    ]
}

#[test]
fn lean_equals_full_or_declines_on_each_built_frame() {
    for (rule, linktype, frame, origlen, expected) in cases() {
        let origlen = origlen.unwrap_or(frame.len() as u32);
        let accepted = lean_agrees(linktype, &frame, origlen, || rule.to_string());
        assert_eq!(if accepted { Accepts } else { Declines }, expected, "{rule}");
    }
}

#[test]
fn lean_payload_len_is_the_ip_length_not_the_padding() {
    let mut frame = ethernet(0x0800, &ipv4(6, &tcp_with(&[], flags::ACK, 2)));
    frame.resize(60, 0);
    let mut s = stale();
    assert!(lean::flow_fields(lt::ETHERNET, &frame, 60, &mut s));
    assert_eq!((s.payload_len, s.flags, s.seq, s.ack), (2, flags::ACK, SEQ, ACK));
    assert_eq!((s.src, s.dst, s.sport, s.dport), (Addr::v4(V4_A), Addr::v4(V4_B), SPORT, DPORT));
}

/// Every prefix of each frame, with the wire length the frame's own and the prefix's:
/// lean never panics, agrees whenever it accepts, and accepts every prefix that holds
/// the fixed TCP header of a frame it accepts whole.
#[test]
fn lean_every_truncation_agrees_or_declines() {
    for (rule, linktype, frame, origlen, expected) in cases() {
        let whole = origlen.unwrap_or(frame.len() as u32);
        let ihl = if frame.len() > IP_AT { (frame[IP_AT] & 0x0f) as usize * 4 } else { 0 };
        let fixed_end = IP_AT + ihl + 20;
        for cut in 0..=frame.len() {
            let prefix = &frame[..cut];
            for origlen in [whole.max(cut as u32), cut as u32] {
                let what = || format!("{rule} cut at {cut}, wire {origlen}");
                let accepted = lean_agrees(linktype, prefix, origlen, what);
                if expected == Accepts && origlen == whole && cut >= fixed_end {
                    assert!(accepted, "{}: lean declined a headers-only frame", what());
                }
            }
        }
    }
}

/// Random bytes of the headers changed, a random cut and wire length: lean never panics
/// and never disagrees with the full decoder.
#[test]
fn lean_random_corruption_agrees_or_declines() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut accepted = 0;
    for (rule, linktype, frame, _, _) in cases() {
        for _ in 0..2000 {
            let mut f = frame.clone();
            let headers = f.len().min(IP_AT + 60 + 60);
            for _ in 0..(next() % 4) {
                let at = (next() as usize) % headers;
                f[at] = next() as u8;
            }
            let cut = (next() as usize) % (f.len() + 1);
            let origlen = match next() % 3 {
                0 => f.len() as u32,
                1 => cut as u32,
                _ => (next() % 70_000) as u32,
            };
            accepted += lean_agrees(linktype, &f[..cut], origlen, || format!("{rule} corrupted {f:02x?} cut {cut} wire {origlen}")) as u32;
        }
    }
    assert!(accepted > 10_000, "only {accepted} corrupted frames reached the lean path");
}
