//! Link layers and the shims between them and IP.

use super::build::*;
use crate::decode::{linktype as lt, Addr, Layer, StopReason};

#[test]
fn ethernet_ipv4_tcp_decodes_every_field() {
    let s = seg(lt::ETHERNET, &eth_v4_tcp());
    assert_eq!((s.src, s.dst), (Addr::v4(V4_A), Addr::v4(V4_B)));
    assert_eq!((s.ip_version, s.tos, s.ttl, s.ip_id), (4, 0, 64, 0x1c46));
    assert_eq!(
        (s.sport, s.dport, s.seq, s.ack, s.window),
        (SPORT, DPORT, SEQ, ACK, WINDOW)
    );
    assert_eq!(
        (s.flags, s.header_len, s.payload_len, s.payload_captured),
        (0x018, 32, 100, 100)
    );
    assert_eq!(s.options.timestamps, Some((1, 2)));
    assert_eq!(s.tunnel_depth, 0);
}

#[test]
fn ethernet_arp_is_not_tcp() {
    let frame = ethernet(0x0806, &[0u8; 28]);
    assert_eq!(
        stop(lt::ETHERNET, &frame),
        (Layer::Link, StopReason::NotTcp)
    );
}

#[test]
fn ethernet_8023_llc_snap_carries_ip() {
    let ip = ipv4(6, &tcp(0));
    let mut llc = vec![0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00];
    llc.extend(&ip);
    let frame = ethernet(llc.len() as u16, &llc);
    assert_eq!(seg(lt::ETHERNET, &frame).sport, SPORT);
}

#[test]
fn vlan_tag_is_skipped() {
    let frame = ethernet(0x8100, &tag([0x00, 0x64, 0x08, 0x00], &ipv4(6, &tcp(5))));
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 5);
}

#[test]
fn qinq_any_service_tag_type_is_skipped() {
    for outer in [0x88A8u16, 0x9100, 0x9200, 0x8100] {
        let inner = tag([0x00, 0x0a, 0x08, 0x00], &ipv4(6, &tcp(5)));
        let [a, b] = 0x8100u16.to_be_bytes();
        let frame = ethernet(outer, &tag([0x01, 0x2c, a, b], &inner));
        assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 5, "outer {outer:#x}");
    }
}

#[test]
fn pppoe_session_over_qinq_reaches_tcp() {
    let ip = ipv4(6, &tcp(7));
    let mut pppoe = vec![0x11, 0x00, 0x0f, 0x07];
    pppoe.extend(((ip.len() + 2) as u16).to_be_bytes());
    pppoe.extend([0x00, 0x21]);
    pppoe.extend(&ip);
    let frame = ethernet(
        0x8100,
        &tag(
            [0x0e, 0x78, 0x81, 0x00],
            &tag([0x09, 0xaa, 0x88, 0x64], &pppoe),
        ),
    );
    assert_eq!(seg(lt::ETHERNET, &frame).payload_len, 7);
}

#[test]
fn pppoe_session_ipv6_reaches_tcp() {
    let ip = ipv6(6, &tcp(7));
    let mut pppoe = vec![0x11, 0x00, 0x00, 0x01];
    pppoe.extend(((ip.len() + 2) as u16).to_be_bytes());
    pppoe.extend([0x00, 0x57]);
    pppoe.extend(&ip);
    assert_eq!(seg(lt::ETHERNET, &ethernet(0x8864, &pppoe)).ip_version, 6);
}

#[test]
fn mpls_label_stack_leads_to_ip_by_version_nibble() {
    let v6 = tag([0x00, 0x01, 0x01, 0x40], &ipv6(6, &tcp(3))); // bottom of stack
    let frame = ethernet(0x8847, &tag([0x00, 0x02, 0x00, 0x40], &v6));
    assert_eq!(seg(lt::ETHERNET, &frame).ip_version, 6);
    let v4 = ethernet(0x8848, &tag([0x00, 0x01, 0x01, 0x40], &ipv4(6, &tcp(3))));
    assert_eq!(seg(lt::ETHERNET, &v4).ip_version, 4);
}

#[test]
fn mpls_pseudowire_control_word_is_not_followed() {
    let frame = ethernet(0x8847, &tag([0x00, 0x01, 0x01, 0x40], &[0u8; 40]));
    assert_eq!(
        stop(lt::ETHERNET, &frame),
        (Layer::Link, StopReason::NotTcp)
    );
}

#[test]
fn sll_v1_protocol_field_is_an_ethertype() {
    let mut h = vec![0, 0, 0, 1, 0, 6];
    h.extend(MAC_A);
    h.extend([0, 0, 0x08, 0x00]);
    h.extend(ipv4(6, &tcp(9)));
    assert_eq!(seg(lt::LINUX_SLL, &h).payload_len, 9);
}

#[test]
fn sll_on_gre_device_protocol_is_a_gre_protocol_type() {
    let mut h = vec![0, 0, 0x03, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x65, 0x58]; // ARPHRD_IPGRE
    h.extend(ethernet(0x0800, &ipv4(6, &tcp(9))));
    assert_eq!(seg(lt::LINUX_SLL, &h).payload_len, 9);
}

#[test]
fn sll2_protocol_field_comes_first() {
    let mut h = vec![0x86, 0xdd, 0, 0, 0, 0, 0, 2, 0, 1, 4, 6];
    h.extend(MAC_A);
    h.extend([0, 0]);
    h.extend(ipv6(6, &tcp(9)));
    assert_eq!(seg(lt::LINUX_SLL2, &h).payload_len, 9);
}

#[test]
fn null_af_inet6_accepts_every_os_value_in_either_byte_order() {
    for af in [10u32, 24, 28, 30] {
        for hdr in [af.to_le_bytes(), af.to_be_bytes()] {
            let frame = cat(&[&hdr, &ipv6(6, &tcp(1))]);
            assert_eq!(seg(lt::NULL, &frame).ip_version, 6, "af {af}");
        }
    }
    let v4 = cat(&[&2u32.to_le_bytes(), &ipv4(6, &tcp(1))]);
    assert_eq!(seg(lt::NULL, &v4).ip_version, 4);
}

#[test]
fn loop_af_is_network_order() {
    let frame = cat(&[&24u32.to_be_bytes(), &ipv6(6, &tcp(1))]);
    assert_eq!(seg(lt::LOOP, &frame).ip_version, 6);
    let swapped = cat(&[&24u32.to_le_bytes(), &ipv6(6, &tcp(1))]);
    assert_eq!(stop(lt::LOOP, &swapped), (Layer::Link, StopReason::NotTcp));
}

#[test]
fn raw_link_types_pick_ip_version() {
    for l in [lt::RAW, lt::RAW_BSD, lt::RAW_OPENBSD] {
        assert_eq!(seg(l, &ipv4(6, &tcp(1))).ip_version, 4);
        assert_eq!(seg(l, &ipv6(6, &tcp(1))).ip_version, 6);
    }
    assert_eq!(seg(lt::IPV4, &ipv4(6, &tcp(1))).ip_version, 4);
    assert_eq!(seg(lt::IPV6, &ipv6(6, &tcp(1))).ip_version, 6);
    let (layer, reason) = stop(lt::IPV4, &ipv6(6, &tcp(1)));
    assert_eq!(layer, Layer::Network);
    assert!(matches!(reason, StopReason::Malformed(_)));
}

#[test]
fn ppp_address_control_and_protocol_compression_are_optional() {
    let ip = ipv6(6, &tcp(1));
    for prefix in [
        &[0x00, 0x57][..],
        &[0xff, 0x03, 0x00, 0x57],
        &[0x57],
        &[0xff, 0x03, 0x57],
    ] {
        assert_eq!(
            seg(lt::PPP, &cat(&[prefix, &ip])).ip_version,
            6,
            "{prefix:02x?}"
        );
    }
    let lcp = cat(&[&[0xc0, 0x21], &[1, 1, 0, 4][..]]);
    assert_eq!(stop(lt::PPP, &lcp), (Layer::Link, StopReason::NotTcp));
}

#[test]
fn fddi_llc_snap_carries_ip() {
    let mut h = vec![0x50];
    h.extend(MAC_A);
    h.extend(MAC_B);
    h.extend([0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]);
    h.extend(ipv4(6, &tcp(1)));
    assert_eq!(seg(lt::FDDI, &h).sport, SPORT);
}

#[test]
fn unknown_link_type_says_which() {
    let (layer, reason) = stop(147, &eth_v4_tcp());
    assert_eq!(
        (layer, reason),
        (Layer::Link, StopReason::UnknownLinkType(147))
    );
}
