//! TCP header fields and options.

use super::build::*;
use crate::decode::{decode, flags, linktype as lt, Decoded, Layer, StopReason, TcpOptions};

const TCP_AT: usize = 14 + 20;

#[test]
fn tcp_data_offset_below_5_is_malformed() {
    let mut frame = eth_v4_tcp();
    frame[TCP_AT + 12] = 0x40;
    assert!(matches!(
        stop(lt::ETHERNET, &frame),
        (Layer::Transport, StopReason::Malformed(_))
    ));
}

#[test]
fn tcp_options_cut_by_snaplen_keep_the_segment() {
    let frame = eth_v4_tcp();
    let Decoded::Tcp(s) = decode(lt::ETHERNET, &frame[..TCP_AT + 24], frame.len() as u32) else {
        panic!("fixed header captured: the segment must decode");
    };
    assert!(s.options.truncated && !s.options.malformed);
    assert_eq!((s.header_len, s.payload_captured), (32, 0));
}

#[test]
fn tcp_fixed_header_beyond_capture_is_truncated() {
    let frame = eth_v4_tcp();
    let r = decode(lt::ETHERNET, &frame[..TCP_AT + 19], frame.len() as u32);
    let want = StopReason::Truncated { needed: 20, available: 19 };
    assert_eq!(r, Decoded::Other { layer: Layer::Transport, reason: want });
}

#[test]
fn tcp_header_beyond_ip_length_is_malformed() {
    let ip = ipv4(6, &tcp_with(&TS_OPTIONS, 0x10, 0)[..24]);
    let frame = cat(&[&ip, &[0u8; 8]]); // bytes present, but past the IP total length
    assert!(matches!(
        stop(lt::RAW, &frame),
        (Layer::Transport, StopReason::Malformed(_))
    ));
}

#[test]
fn tcp_super_segment_len_exceeds_mss() {
    let frame = ethernet(0x0800, &ipv4(6, &tcp(64_000)));
    let s = seg(lt::ETHERNET, &frame);
    assert_eq!((s.payload_len, s.payload_captured), (64_000, 64_000));
}

#[test]
fn tcp_flags_keep_all_12_bits() {
    let all = flags::FIN | flags::SYN | flags::RST | flags::PSH | flags::ACK | flags::URG;
    let all = all | flags::ECE | flags::CWR | flags::AE;
    let frame = ethernet(0x0800, &ipv4(6, &tcp_with(&[], all, 0)));
    assert_eq!(seg(lt::ETHERNET, &frame).flags, 0x1ff);
}

fn opts(bytes: &[u8]) -> TcpOptions {
    TcpOptions::parse(bytes)
}

#[test]
fn syn_options_mss_wscale_sack_permitted_timestamps() {
    let o = opts(&[
        2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 9, 0, 0, 0, 0, 1, 3, 3, 7,
    ]);
    assert_eq!(
        (o.mss, o.wscale, o.sack_permitted),
        (Some(1460), Some(7), true)
    );
    assert_eq!((o.timestamps, o.malformed), (Some((9, 0)), false));
}

#[test]
fn sack_blocks_up_to_four_are_kept() {
    let mut b = vec![1, 1, 5, 34];
    for i in 0..4u32 {
        b.extend((i * 100).to_be_bytes());
        b.extend((i * 100 + 50).to_be_bytes());
    }
    let o = opts(&b);
    assert_eq!(
        o.sack_blocks(),
        &[(0, 50), (100, 150), (200, 250), (300, 350)]
    );
    assert!(!o.malformed);
}

#[test]
fn timestamps_first_then_sack_both_kept() {
    let mut b = vec![1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 5, 1, 1, 5, 10];
    b.extend(100u32.to_be_bytes());
    b.extend(150u32.to_be_bytes());
    let o = opts(&b);
    assert_eq!((o.timestamps, o.sack_blocks(), o.malformed), (Some((7, 5)), &[(100, 150)][..], false));
}

#[test]
fn timestamps_first_cut_short_is_malformed() {
    let o = opts(&[1, 1, 8, 10, 0, 0, 0, 7]);
    assert_eq!((o.timestamps, o.malformed), (None, true));
}

#[test]
fn sack_without_blocks_is_malformed() {
    let o = opts(&[1, 1, 5, 2]);
    assert_eq!((o.sack_count, o.malformed), (0, true));
}

#[test]
fn option_length_past_header_stops_parsing() {
    let o = opts(&[2, 4, 0x05, 0xb4, 8, 12, 0, 0, 0, 1, 0, 0]);
    assert_eq!((o.mss, o.timestamps, o.malformed), (Some(1460), None, true));
}

#[test]
fn option_length_below_2_stops_parsing() {
    let o = opts(&[3, 0, 7, 1, 2, 4, 0x05, 0xb4]);
    assert_eq!((o.wscale, o.mss, o.malformed), (None, None, true));
}

#[test]
fn option_with_wrong_fixed_length_is_skipped_and_flagged() {
    let o = opts(&[2, 3, 0x05, 3, 3, 7, 0, 0]);
    assert_eq!((o.mss, o.wscale, o.malformed), (None, Some(7), true));
}

#[test]
fn eol_ends_the_list() {
    let o = opts(&[0, 2, 4, 0x05, 0xb4]);
    assert_eq!((o.mss, o.malformed), (None, false));
}

#[test]
fn fast_open_kind_34_and_experimental_254() {
    assert!(opts(&[34, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 1]).tfo);
    assert!(opts(&[34, 2, 1, 1]).tfo); // cookie request
    assert!(opts(&[254, 4, 0xF9, 0x89]).tfo);
    assert!(!opts(&[254, 4, 0x12, 0x34]).tfo);
}

#[test]
fn mptcp_kind_30_is_noted() {
    let o = opts(&[30, 12, 0x00, 0x81, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert!(o.mptcp && !o.malformed);
}

#[test]
fn options_reach_the_segment() {
    let frame = ethernet(
        0x0800,
        &ipv4(6, &tcp_with(&[2, 4, 0x23, 0x28], flags::SYN, 0)),
    );
    assert_eq!(seg(lt::ETHERNET, &frame).options.mss, Some(9000));
}
