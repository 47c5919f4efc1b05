//! Property-style checks: every prefix of a set of frames, and random corruptions of
//! them, decode without panicking; a prefix that cuts a header yields `Truncated`.

use super::build::*;
use crate::decode::{decode, linktype as lt, Decoded, StopReason};

/// One frame per layer path the decoder knows.
fn corpus() -> Vec<(u32, Vec<u8>)> {
    let inner = ethernet(0x0800, &ipv4(6, &tcp(10)));
    let vx = cat(&[&[0x08, 0, 0, 0, 0, 0, 0x7b, 0][..], &inner]);
    let geneve = cat(&[
        &[0x01, 0x00, 0x65, 0x58, 0, 0, 0x7b, 0, 1, 2, 3, 4][..],
        &inner,
    ]);
    let mut pppoe = vec![0x11, 0x00, 0x0f, 0x07, 0, 0, 0x00, 0x21];
    let ip = ipv4(6, &tcp(7));
    pppoe[4..6].copy_from_slice(&((ip.len() + 2) as u16).to_be_bytes());
    pppoe.extend(&ip);
    let mut sll = vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x86, 0xdd];
    sll.extend(ipv6(
        0,
        &ext6(44, &[&[6, 0, 0, 0, 0, 0, 0, 1][..], &tcp(3)].concat()),
    ));
    let erspan2 = [0x10, 0x01, 0x00, 0x01, 0, 0, 0, 0];
    let gpe = cat(&[&[0x0c, 0, 0, 2, 0, 0, 0x7b, 0][..], &ipv6(6, &tcp(3))]);
    let v4 = ipv4(6, &tcp(5));
    let mut gtp = vec![
        0x34, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x85, 1, 0x10, 0x05, 0x00,
    ];
    gtp[2..4].copy_from_slice(&((v4.len() + 8) as u16).to_be_bytes());
    gtp.extend(&v4);
    let mut ah = vec![6, 4, 0, 0];
    ah.extend([0u8; 20]);
    ah.extend(tcp(3));
    let mut wlan = vec![0x88, 0x01, 0, 0];
    wlan.extend([MAC_A, MAC_B, MAC_A].concat());
    wlan.extend([0x80, 0x7d, 0, 0, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]);
    wlan.extend(ipv4(6, &tcp(10)));
    let mut fddi = vec![0x50];
    fddi.extend([MAC_A, MAC_B].concat());
    fddi.extend([0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00]);
    fddi.extend(ipv4(6, &tcp(1)));
    let mut sll2 = vec![
        0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 4, 6, 1, 2, 3, 4, 5, 6, 0, 0,
    ];
    sll2.extend(ipv4(6, &tcp(9)));
    let erspan3 = [
        0x20, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    vec![
        (lt::ETHERNET, eth_v4_tcp()),
        (lt::ETHERNET, ethernet(0x86dd, &ipv6(6, &tcp(10)))),
        (
            lt::ETHERNET,
            ethernet(
                0x88a8,
                &tag([0, 1, 0x81, 0], &tag([0, 2, 0x88, 0x64], &pppoe)),
            ),
        ),
        (
            lt::ETHERNET,
            ethernet(0x8847, &tag([0, 0, 0x11, 0x40], &ipv4(6, &tcp(2)))),
        ),
        (
            lt::ETHERNET,
            ethernet(0x0800, &ipv4(17, &udp(1, 4789, &vx))),
        ),
        (
            lt::ETHERNET,
            ethernet(0x0800, &ipv4(17, &udp(1, 6081, &geneve))),
        ),
        (
            lt::ETHERNET,
            ethernet(0x0800, &ipv4(47, &gre(0x3000, 0x6558, &[0; 8], &inner))),
        ),
        (
            lt::ETHERNET,
            ethernet(
                0x0800,
                &ipv4(47, &gre(0x1000, 0x22EB, &[0; 4], &cat(&[&erspan3, &inner]))),
            ),
        ),
        (lt::RAW, ipv4(41, &ipv6(6, &tcp(4)))),
        (lt::LINUX_SLL, sll),
        (
            lt::LINUX_SLL,
            cat(&[
                &[0, 0, 0x03, 0x0a, 0, 0][..],
                &[0; 8],
                &[0x65, 0x58],
                &inner,
            ]),
        ),
        (lt::NULL, cat(&[&30u32.to_le_bytes(), &ipv6(6, &tcp(1))])),
        (
            lt::ETHERNET,
            ethernet(
                0x0800,
                &ipv4(47, &gre(0x1000, 0x88BE, &[0; 4], &cat(&[&erspan2, &inner]))),
            ),
        ),
        (
            lt::ETHERNET,
            ethernet(0x0800, &ipv4(47, &gre(0x2000, 0x8200, &[0; 4], &wlan))),
        ),
        (
            lt::ETHERNET,
            ethernet(0x0800, &ipv4(17, &udp(1, 4790, &gpe))),
        ),
        (
            lt::ETHERNET,
            ethernet(0x0800, &ipv4(17, &udp(2152, 2152, &gtp))),
        ),
        (lt::ETHERNET, ethernet(0x86dd, &ipv6(51, &ah))),
        (
            lt::ETHERNET,
            ethernet(
                0x8847,
                &tag(
                    [0, 0, 0x10, 0x40],
                    &tag([0, 0, 0x21, 0x40], &ipv6(6, &tcp(2))),
                ),
            ),
        ),
        (lt::FDDI, fddi),
        (lt::LINUX_SLL2, sll2),
        (lt::LOOP, cat(&[&24u32.to_be_bytes(), &ipv6(6, &tcp(1))])),
        (lt::IEEE802_11, wlan),
        (lt::PPP, cat(&[&[0x57], &ipv6(6, &tcp(1))[..]])),
        (
            lt::PPP,
            cat(&[&[0xff, 0x03, 0x00, 0x21], &ipv4(6, &tcp(1))[..]]),
        ),
    ]
}

#[test]
fn every_prefix_never_panics_and_cut_headers_are_truncated() {
    for (i, (linktype, frame)) in corpus().into_iter().enumerate() {
        let Decoded::Tcp(full) = decode(linktype, &frame, frame.len() as u32) else {
            panic!("frame {i} does not decode whole");
        };
        let headers_end = frame.len() - full.payload_captured as usize;
        // The fixed 20 bytes of TCP are what a segment needs; options may be cut.
        let fixed_end = headers_end - full.header_len as usize + 20;
        for cut in 0..frame.len() {
            let r = decode(linktype, &frame[..cut], frame.len() as u32);
            if cut < fixed_end {
                assert!(
                    matches!(
                        r,
                        Decoded::Other {
                            reason: StopReason::Truncated { .. },
                            ..
                        }
                    ),
                    "frame {i} cut at {cut}: {r:?}"
                );
            } else {
                let Decoded::Tcp(s) = r else {
                    panic!("frame {i} cut at {cut}: {r:?}")
                };
                assert_eq!(s.options.truncated, cut < headers_end, "frame {i} cut at {cut}");
                assert_eq!(s.payload_captured as usize, cut.saturating_sub(headers_end));
                assert_eq!(s.payload_len, full.payload_len, "frame {i} cut at {cut}");
                assert_eq!(
                    (s.seq, s.ack, s.sport, s.dport),
                    (full.seq, full.ack, full.sport, full.dport)
                );
            }
        }
    }
}

#[test]
fn random_corruption_never_panics() {
    let linktypes = [
        0, 1, 9, 10, 12, 14, 50, 51, 101, 105, 108, 113, 228, 229, 276,
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (linktype, frame) in corpus() {
        for _ in 0..3000 {
            let mut f = frame.clone();
            for _ in 0..(next() % 5) {
                let at = (next() as usize) % f.len();
                f[at] = next() as u8;
            }
            let cut = (next() as usize) % (f.len() + 1);
            let lt = if next() % 4 == 0 {
                linktypes[(next() as usize) % linktypes.len()]
            } else {
                linktype
            };
            let origlen = if next() % 2 == 0 {
                f.len() as u32
            } else {
                next() as u32
            };
            if let Decoded::Tcp(s) = decode(lt, &f[..cut], origlen) {
                assert!(s.payload_captured as usize <= cut);
                assert!(s.payload_captured <= s.payload_len);
            }
        }
    }
}

/// Writes the frames above as one pcap per link type into `$TCPDIAG_DUMP_FRAMES`, so that
/// `tests/dev/decode_vs_tshark.py` can check them against tshark:
/// `TCPDIAG_DUMP_FRAMES=/tmp/frames cargo test -p tcpdiag-core dump_frames -- --ignored`.
#[test]
#[ignore]
fn dump_frames_for_tshark() {
    let dir = std::env::var("TCPDIAG_DUMP_FRAMES").expect("set TCPDIAG_DUMP_FRAMES");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = std::collections::BTreeMap::<u32, Vec<u8>>::new();
    for (linktype, frame) in corpus() {
        let f = files.entry(linktype).or_insert_with(|| {
            let mut h = 0xa1b2_c3d4u32.to_le_bytes().to_vec();
            h.extend(2u16.to_le_bytes());
            h.extend(4u16.to_le_bytes());
            for v in [0u32, 0, 262_144, linktype] {
                h.extend(v.to_le_bytes());
            }
            h
        });
        for v in [1u32, 0, frame.len() as u32, frame.len() as u32] {
            f.extend(v.to_le_bytes());
        }
        f.extend(&frame);
    }
    for (linktype, bytes) in files {
        std::fs::write(format!("{dir}/linktype-{linktype}.pcap"), bytes).unwrap();
    }
}
