//! Tunnels: the innermost TCP segment is reported, with its depth.

use super::build::*;
use crate::decode::{linktype as lt, Addr, Layer, StopReason, MAX_TUNNEL_DEPTH};

fn inner_eth() -> Vec<u8> {
    ethernet(0x0800, &ipv4(6, &tcp(10)))
}

fn outer_v4(proto: u8, payload: &[u8]) -> Vec<u8> {
    let mut ip = ipv4(proto, payload);
    ip[12..16].copy_from_slice(&[10, 0, 0, 1]); // distinct outer addresses
    ethernet(0x0800, &ip)
}

#[test]
fn ip_in_ip_reports_inner_addresses() {
    let s = seg(lt::ETHERNET, &outer_v4(4, &ipv4(6, &tcp(10))));
    assert_eq!(
        (s.src, s.tunnel_depth, s.payload_len),
        (Addr::v4(V4_A), 1, 10)
    );
}

#[test]
fn six_in_four_reports_inner_ipv6() {
    let s = seg(lt::ETHERNET, &outer_v4(41, &ipv6(6, &tcp(10))));
    assert_eq!((s.ip_version, s.tunnel_depth), (6, 1));
}

#[test]
fn gre_checksum_key_sequence_are_skipped() {
    let fields = [0u8; 12];
    let frame = outer_v4(47, &gre(0xB000, 0x0800, &fields, &ipv4(6, &tcp(10))));
    let s = seg(lt::ETHERNET, &frame);
    assert_eq!((s.tunnel_depth, s.payload_len), (1, 10));
}

#[test]
fn gre_transparent_ethernet_bridging() {
    let frame = outer_v4(47, &gre(0x2000, 0x6558, &[0, 0, 0, 1], &inner_eth()));
    assert_eq!(seg(lt::ETHERNET, &frame).tunnel_depth, 1);
}

#[test]
fn gre_source_route_entries_are_skipped() {
    let sre = [0, 0, 0, 0, 0x08, 0x00, 0, 4, 1, 2, 3, 4, 0, 0, 0, 0];
    let frame = outer_v4(47, &gre(0x4000, 0x0800, &sre, &ipv4(6, &tcp(10))));
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 10);
}

#[test]
fn erspan_type_1_has_no_header() {
    let frame = outer_v4(47, &gre(0x0000, 0x88BE, &[], &inner_eth()));
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 10);
}

#[test]
fn erspan_type_2_header_is_skipped() {
    let hdr = [0x10, 0x01, 0x00, 0x01, 0, 0, 0, 0];
    let frame = outer_v4(
        47,
        &gre(0x1000, 0x88BE, &[0, 0, 0, 5], &cat(&[&hdr, &inner_eth()])),
    );
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 10);
}

#[test]
fn erspan_type_3_platform_subheader_is_skipped() {
    let hdr = [0x20, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0x00, 0x01];
    let platform = [0u8; 8];
    let frame = outer_v4(
        47,
        &gre(
            0x1000,
            0x22EB,
            &[0, 0, 0, 5],
            &cat(&[&hdr, &platform, &inner_eth()]),
        ),
    );
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 10);
}

#[test]
fn aruba_gre_80211_qos_data_reaches_tcp() {
    let mut wlan = vec![0x88, 0x01, 0, 0];
    wlan.extend([MAC_A, MAC_B, MAC_A].concat());
    wlan.extend([0x80, 0x7d, 0, 0]); // sequence control, QoS control
    wlan.extend([0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]);
    wlan.extend(ipv4(6, &tcp(10)));
    let frame = outer_v4(47, &gre(0x0000, 0x8200, &[], &wlan));
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 10);
    wlan[1] |= 0x40; // Protected
    let frame = outer_v4(47, &gre(0x0000, 0x8200, &[], &wlan));
    assert_eq!(
        stop(lt::ETHERNET, &frame),
        (Layer::Link, StopReason::Encrypted)
    );
}

#[test]
fn vxlan_inner_frame_is_depth_1() {
    let vx = cat(&[&[0x08, 0, 0, 0, 0, 0, 0x7b, 0][..], &inner_eth()]);
    let s = seg(lt::ETHERNET, &outer_v4(17, &udp(51234, 4789, &vx)));
    assert_eq!(
        (s.tunnel_depth, s.payload_len, s.src),
        (1, 10, Addr::v4(V4_A))
    );
}

#[test]
fn vxlan_in_vxlan_is_depth_2() {
    let vx = |inner: &[u8]| cat(&[&[0x08, 0, 0, 0, 0, 0, 0x7b, 0][..], inner]);
    let level1 = ethernet(0x0800, &ipv4(17, &udp(40000, 4789, &vx(&inner_eth()))));
    let frame = outer_v4(17, &udp(40001, 4789, &vx(&level1)));
    assert_eq!(seg(lt::ETHERNET, &frame).tunnel_depth, 2);
}

#[test]
fn vxlan_gpe_next_protocol_ipv6() {
    let gpe = cat(&[&[0x0c, 0, 0, 2, 0, 0, 0x7b, 0][..], &ipv6(6, &tcp(10))]);
    assert_eq!(
        seg(lt::ETHERNET, &outer_v4(17, &udp(40000, 4790, &gpe))).ip_version,
        6
    );
}

#[test]
fn geneve_options_are_skipped() {
    let mut g = vec![0x02, 0x00, 0x65, 0x58, 0, 0, 0x7b, 0];
    g.extend([0x01, 0x02, 0x80, 0x01, 0, 0, 0, 0]); // one 8-byte option (opt len 2 words)
    g.extend(inner_eth());
    let s = seg(lt::ETHERNET, &outer_v4(17, &udp(40000, 6081, &g)));
    assert_eq!((s.tunnel_depth, s.payload_len), (1, 10));
}

#[test]
fn gtp_u_extension_headers_are_skipped() {
    let inner = ipv4(6, &tcp(10));
    let mut g = vec![0x34, 0xff];
    g.extend(((inner.len() + 8) as u16).to_be_bytes());
    g.extend([0, 0, 0, 1, 0, 0, 0, 0x85]); // TEID; seq, N-PDU, next = PDU session container
    g.extend([1, 0x10, 0x05, 0x00]); // 4-byte extension, next type 0
    g.extend(&inner);
    let s = seg(lt::ETHERNET, &outer_v4(17, &udp(2152, 2152, &g)));
    assert_eq!((s.tunnel_depth, s.payload_len), (1, 10));
}

#[test]
fn plain_udp_is_not_tcp() {
    let frame = outer_v4(17, &udp(40000, 53, &[0u8; 20]));
    assert_eq!(
        stop(lt::ETHERNET, &frame),
        (Layer::Transport, StopReason::NotTcp)
    );
}

#[test]
fn tunnels_nested_beyond_max_are_malformed() {
    let mut ip = ipv4(6, &tcp(1));
    for _ in 0..MAX_TUNNEL_DEPTH {
        ip = ipv4(4, &ip);
    }
    assert_eq!(seg(lt::RAW, &ip).tunnel_depth, MAX_TUNNEL_DEPTH);
    let deeper = ipv4(4, &ip);
    assert!(matches!(
        stop(lt::RAW, &deeper),
        (Layer::Tunnel, StopReason::Malformed(_))
    ));
}
