//! IPv4 and IPv6 lengths, fragments and extension headers.

use super::build::*;
use crate::decode::{decode, linktype as lt, Decoded, Layer, StopReason};

const ETH: usize = 14;

fn set16(frame: &mut [u8], at: usize, v: u16) {
    frame[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

#[test]
fn ipv4_total_length_zero_uses_captured_length() {
    let mut frame = eth_v4_tcp();
    set16(&mut frame, ETH + 2, 0);
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 100);
}

#[test]
fn ipv4_total_length_zero_uses_wire_length_when_snaplen_cut() {
    let mut frame = eth_v4_tcp();
    set16(&mut frame, ETH + 2, 0);
    let Decoded::Tcp(s) = decode(lt::ETHERNET, &frame[..80], 80_066) else {
        panic!()
    };
    assert_eq!(s.payload_len, 80_066 - 14 - 20 - 32);
    assert_eq!(s.payload_captured, 80 - 14 - 20 - 32);
}

#[test]
fn ipv4_snaplen_cut_payload_keeps_ip_length() {
    let frame = eth_v4_tcp();
    let Decoded::Tcp(s) = decode(lt::ETHERNET, &frame[..70], frame.len() as u32) else {
        panic!()
    };
    assert_eq!((s.payload_len, s.payload_captured), (100, 4));
}

#[test]
fn ipv4_ethernet_padding_is_not_payload() {
    let mut frame = ethernet(0x0800, &ipv4(6, &tcp_with(&[], 0x010, 0)));
    frame.extend([0u8; 6]); // pad to 60 bytes
    let s = seg(lt::ETHERNET, &frame);
    assert_eq!((s.payload_len, s.payload_captured), (0, 0));
}

#[test]
fn ipv4_more_fragments_is_fragment() {
    let mut frame = eth_v4_tcp();
    set16(&mut frame, ETH + 6, 0x2000);
    assert_eq!(
        stop(lt::ETHERNET, &frame),
        (Layer::Network, StopReason::Fragment)
    );
}

#[test]
fn ipv4_nonzero_offset_is_fragment() {
    let mut frame = eth_v4_tcp();
    set16(&mut frame, ETH + 6, 0x0001);
    assert_eq!(
        stop(lt::ETHERNET, &frame),
        (Layer::Network, StopReason::Fragment)
    );
}

#[test]
fn ipv4_ihl_below_5_is_malformed() {
    let mut frame = eth_v4_tcp();
    frame[ETH] = 0x44;
    assert!(matches!(
        stop(lt::ETHERNET, &frame),
        (Layer::Network, StopReason::Malformed(_))
    ));
}

#[test]
fn ipv4_total_length_below_header_is_malformed() {
    let mut frame = eth_v4_tcp();
    set16(&mut frame, ETH + 2, 19);
    assert!(matches!(
        stop(lt::ETHERNET, &frame),
        (Layer::Network, StopReason::Malformed(_))
    ));
}

#[test]
fn ipv4_options_move_the_tcp_header() {
    let mut ip = ipv4(6, &tcp(10));
    ip[0] = 0x46;
    ip.splice(20..20, [1, 1, 1, 0]); // NOP NOP NOP EOL
    let total = ip.len() as u16;
    set16(&mut ip, 2, total);
    assert_eq!(seg(lt::RAW, &ip).payload_len, 10);
}

#[test]
fn ipv4_icmp_error_quoting_tcp_is_not_tcp() {
    let quoted = ipv4(6, &tcp(0)[..8]);
    let icmp = cat(&[&[3, 3, 0, 0, 0, 0, 0, 0], &quoted]);
    assert_eq!(
        stop(lt::RAW, &ipv4(1, &icmp)),
        (Layer::Transport, StopReason::NotTcp)
    );
}

#[test]
fn ipv6_tcp_decodes_addresses_and_traffic_class() {
    let s = seg(lt::RAW, &ipv6(6, &tcp(10)));
    assert_eq!(
        (s.src.0, s.dst.0, s.tos, s.ttl, s.ip_id),
        (V6_A, V6_B, 0x0b, 57, 0)
    );
    assert_eq!(s.payload_len, 10);
}

#[test]
fn ipv6_extension_headers_are_walked_to_tcp() {
    let chain = ext6(43, &ext6(60, &ext6(6, &tcp(10))));
    assert_eq!(seg(lt::RAW, &ipv6(0, &chain)).payload_len, 10);
}

#[test]
fn ipv6_authentication_header_counts_in_4_byte_words() {
    let mut ah = vec![6, 4, 0, 0];
    ah.extend([0u8; 20]); // SPI, sequence, 12-byte ICV: (4 + 2) * 4 = 24 bytes
    ah.extend(tcp(3));
    assert_eq!(seg(lt::RAW, &ipv6(51, &ah)).payload_len, 3);
}

#[test]
fn ipv6_jumbo_payload_option_gives_length() {
    // Hop-by-Hop with Jumbo Payload = 8 (HBH) + 32 (TCP) + 70_000 (payload).
    let mut hbh = vec![6, 0, 0xC2, 4];
    hbh.extend(((8 + 32 + 70_000) as u32).to_be_bytes());
    let mut frame = ethernet(0x86dd, &ipv6(0, &cat(&[&hbh, &tcp(200)])));
    set16(&mut frame, ETH + 4, 0);
    let Decoded::Tcp(s) = decode(lt::ETHERNET, &frame, 14 + 40 + 8 + 32 + 70_000) else {
        panic!()
    };
    assert_eq!((s.payload_len, s.payload_captured), (70_000, 200));
}

#[test]
fn ipv6_payload_length_zero_without_jumbo_runs_to_frame_end() {
    let mut frame = ethernet(0x86dd, &ipv6(6, &tcp(200)));
    set16(&mut frame, ETH + 4, 0);
    let Decoded::Tcp(s) = decode(lt::ETHERNET, &frame, 80_054) else {
        panic!()
    };
    assert_eq!(s.payload_len, 80_054 - 14 - 40 - 32);
}

#[test]
fn ipv6_first_fragment_is_fragment() {
    let frag = cat(&[&[6, 0, 0x00, 0x01, 0, 0, 0, 7][..], &tcp(10)]);
    assert_eq!(
        stop(lt::RAW, &ipv6(44, &frag)),
        (Layer::Network, StopReason::Fragment)
    );
}

#[test]
fn ipv6_atomic_fragment_is_a_whole_datagram() {
    let frag = cat(&[&[6, 0, 0x00, 0x00, 0, 0, 0, 7][..], &tcp(10)]);
    assert_eq!(seg(lt::RAW, &ipv6(44, &frag)).payload_len, 10);
}

#[test]
fn ipv6_esp_is_encrypted() {
    assert_eq!(
        stop(lt::RAW, &ipv6(50, &[0u8; 40])),
        (Layer::Network, StopReason::Encrypted)
    );
}

#[test]
fn ipv6_no_next_header_is_not_tcp() {
    assert_eq!(
        stop(lt::RAW, &ipv6(59, &[])),
        (Layer::Network, StopReason::NotTcp)
    );
}

#[test]
fn ipv6_extension_headers_beyond_payload_length_are_malformed() {
    let mut ip = ipv6(0, &ext6(6, &tcp(0)));
    set16(&mut ip, 4, 4);
    assert!(matches!(
        stop(lt::RAW, &ip),
        (Layer::Network, StopReason::Malformed(_))
    ));
}
