//! The real pktmon traces in `/work/shared/corpus/etl` (skipped when absent): every file
//! reads without error, packet counts and link types are as SOURCES.md records, and the
//! demikernel trace matches the Windows `pktmon etl2pcap` conversion packet for packet.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::{all_frames, corpus_dir, every_copy, pcapng_packets};
use tcpdiag_etl::{Direction, EtlReader, ObservationFilter, ReaderOptions};

/// file, frames (every copy), truncated, frames per LINKTYPE, drops, "WiFi"-typed
/// packets whose bytes are Ethernet (counted in LINKTYPE 1; etl2pcapng writes them as 105).
type Row = (&'static str, u64, u64, &'static [(u32, u64)], u64, u64);
const TABLE: &[Row] = &[
    ("pktmon_demikernel_icmp.etl", 114, 0, &[(1, 114)], 0, 0),
    ("pktmon_filter_only_nopackets.etl", 0, 0, &[], 0, 0),
    ("pktmon_rundown_only_nopackets.etl", 0, 0, &[], 0, 0),
    ("pktmon_udp_ipv6.etl", 51, 0, &[(1, 51)], 0, 0),
    ("pktmon_vpn_a_trunc128.etl", 2705, 683, &[(1, 1739), (105, 966)], 0, 207),
    ("pktmon_vpn_b_trunc128.etl", 3646, 1204, &[(1, 1612), (105, 2034)], 0, 95),
    ("pktmon_vpn_vid_trunc128.etl", 1111, 476, &[(1, 685), (105, 426)], 0, 97),
    ("pktmon_wifi_eth_drops.etl", 30132, 0, &[(1, 12142), (101, 3428), (105, 14562)], 3428, 2124),
];

#[test]
fn every_corpus_trace_reads_with_the_recorded_counts() {
    let Some(dir) = corpus_dir() else { return };
    for &(name, frames, truncated, linktypes, drops, relabelled) in TABLE {
        let mut r = EtlReader::open_with(dir.join(name), every_copy()).unwrap();
        let (v, err) = all_frames(&mut r);
        assert_eq!(err, None, "{name}");
        let s = r.stats();
        assert_eq!((s.frames, v.len() as u64), (frames, frames), "{name}");
        assert_eq!(v.iter().filter(|f| (f.origlen as usize) > f.data.len()).count() as u64, truncated, "{name}");
        let mut lt = BTreeMap::new();
        for f in &v {
            *lt.entry(f.linktype).or_insert(0u64) += 1;
        }
        assert_eq!(lt.into_iter().collect::<Vec<_>>(), linktypes.to_vec(), "{name}");
        assert_eq!((s.drops, s.wifi_typed_ethernet), (drops, relabelled), "{name}");
        assert_eq!((s.corrupt_records, s.corrupt_buffers, s.out_of_order), (0, 0, 0), "{name}");
        assert_eq!((s.events_lost, s.buffers_lost, s.buffers_flagged_lost), (0, 0, 0), "{name}");
        assert!(s.compressed_buffers > 0 && s.schemas >= 11, "{name}: relogged files embed schemas");
        assert!(v.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns), "{name}: timestamp order");
        assert!(v.iter().all(|f| f.direction != Direction::Unknown), "{name}");
    }
}

#[test]
fn demikernel_matches_the_windows_conversion_packet_for_packet() {
    let Some(dir) = corpus_dir() else { return };
    let reference = pcapng_packets(&std::fs::read(dir.join("pktmon_demikernel_icmp.pktmon-etl2pcap.pcapng")).unwrap());
    let mut r = EtlReader::open_with(dir.join("pktmon_demikernel_icmp.etl"), every_copy()).unwrap();
    let (ours, err) = all_frames(&mut r);
    assert_eq!(err, None);
    assert_eq!(ours.len(), reference.len());
    for (i, (f, (ts_us, orig, data))) in ours.iter().zip(&reference).enumerate() {
        assert_eq!(f.ts_ns.div_euclid(1000) as u64, *ts_us, "frame {}", i + 1);
        assert_eq!(&f.data, data, "frame {}", i + 1);
        assert_eq!(f.origlen, *orig, "frame {}", i + 1);
        assert_eq!(f.frame().caplen as usize, data.len());
    }
}

#[test]
fn first_per_flow_shows_each_packet_once() {
    let Some(dir) = corpus_dir() else { return };
    // Windows 11 24H2 (the wifi trace) gives each copy its own PktGroupId: checked below.
    for name in ["pktmon_demikernel_icmp.etl", "pktmon_vpn_a_trunc128.etl"] {
        let mut r = EtlReader::open(dir.join(name)).unwrap();
        let (v, err) = all_frames(&mut r);
        assert_eq!(err, None);
        // A packet is (PktGroupId, PktNumber): one group can hold several packets.
        let mut seen: HashMap<(u64, u16), u32> = HashMap::new();
        for f in v.iter().filter(|f| f.drop.is_none()) {
            *seen.entry(packet_key(f)).or_default() += 1;
        }
        let dup = seen.values().filter(|&&n| n > 1).count();
        let s = r.stats();
        println!("{name}: {} frames kept, {} hidden, {} packet ids seen twice", s.frames, s.frames_filtered, dup);
        assert_eq!(dup, 0, "{name}");
        // Every packet group still has a frame: nothing vanished.
        let mut all = EtlReader::open_with(dir.join(name), every_copy()).unwrap();
        let (every, _) = all_frames(&mut all);
        let packets: std::collections::HashSet<(u64, u16)> = every.iter().filter(|f| f.drop.is_none()).map(packet_key).collect();
        println!("  {} packets, {} shown", packets.len(), seen.len());
        assert!(seen.len() * 100 >= packets.len() * 97, "{name}: the filter hides too many packets");
    }
}

fn packet_key(f: &tcpdiag_etl::EtlFrame) -> (u64, u16) {
    match f.observation {
        tcpdiag_etl::Observation::PktMon { packet_number, .. } => (f.packet_id.unwrap(), packet_number),
        _ => unreachable!(),
    }
}

#[test]
fn first_per_flow_leaves_no_identical_tcp_packet_twice() {
    let Some(dir) = corpus_dir() else { return };
    let mut r = EtlReader::open(dir.join("pktmon_wifi_eth_drops.etl")).unwrap();
    let (v, _) = all_frames(&mut r);
    let mut last_seen: HashMap<Vec<u8>, i64> = HashMap::new();
    let (mut ip_frames, mut twice) = (0, 0);
    for f in v.iter().filter(|f| f.drop.is_none()) {
        // TCP only: the radio delivers some multicast (mDNS) frames several times.
        let Some((_, ip)) = tcpdiag_etl::flowkey::ip_packet(f.linktype, &f.data) else { continue };
        if tcpdiag_etl::flowkey::flow_key(f.linktype, &f.data).map(|k| k.protocol) != Some(6) {
            continue;
        }
        ip_frames += 1;
        if let Some(t) = last_seen.insert(ip.to_vec(), f.ts_ns) {
            twice += (f.ts_ns - t < 10_000_000) as u32; // same bytes within 10 ms
        }
    }
    // Distinct TCP/IP packets over every copy: the filter must show (nearly) each once.
    let mut all = EtlReader::open_with(dir.join("pktmon_wifi_eth_drops.etl"), every_copy()).unwrap();
    let (every, _) = all_frames(&mut all);
    let distinct: std::collections::HashSet<&[u8]> = every
        .iter()
        .filter(|f| f.drop.is_none())
        .filter(|f| tcpdiag_etl::flowkey::flow_key(f.linktype, &f.data).map(|k| k.protocol) == Some(6))
        .filter_map(|f| tcpdiag_etl::flowkey::ip_packet(f.linktype, &f.data).map(|(_, ip)| ip))
        .collect();
    println!("{ip_frames} TCP frames kept of {} distinct, {twice} repeated within 10 ms", distinct.len());
    assert_eq!(twice, 0);
    assert!(ip_frames * 100 >= distinct.len() * 97, "the filter hides too many packets");
}

#[test]
fn first_appearance_keeps_one_copy_per_group() {
    let Some(dir) = corpus_dir() else { return };
    let opts = ReaderOptions { observation: ObservationFilter::FirstAppearance, keep_drops: false, ..ReaderOptions::default() };
    let mut r = EtlReader::open_with(dir.join("pktmon_demikernel_icmp.etl"), opts).unwrap();
    let (v, _) = all_frames(&mut r);
    assert_eq!(v.len(), 38, "38 packets: received ones cross 2 components, sent ones 4");
}

#[test]
fn components_and_interfaces_are_named() {
    let Some(dir) = corpus_dir() else { return };
    let mut r = EtlReader::open(dir.join("pktmon_demikernel_icmp.etl")).unwrap();
    let (v, _) = all_frames(&mut r);
    let ifaces = r.interfaces();
    assert!(!ifaces.is_empty());
    for i in &ifaces {
        assert!(!i.description.is_empty(), "{i:?}");
        println!("{} {} lt={} {} mac={:?}", i.id, i.name, i.linktype, i.description, i.mac);
    }
    let f = &v[0];
    println!("{:?}", f.options);
    assert!(f.options.comments[0].starts_with("PktMon component"));
    assert!(f.options.flags.is_some() && f.options.packet_id.is_some());
}

#[test]
fn other_corpus_traces_read() {
    let Some(dir) = corpus_dir() else { return };
    // An uncompressed kernel trace (no packets) and one more pktmon trace with drops.
    let cases = [("../airbus-cert_etl-parser/tests/example/lxcore_kernel.etl", 0, 0), ("../NeoChenjf_Finguard/PktMon.etl", 406, 28)];
    for (path, frames, drops) in cases {
        let p = dir.join(path);
        if !p.exists() {
            continue;
        }
        let mut r = EtlReader::open_with(p, every_copy()).unwrap();
        let (v, err) = all_frames(&mut r);
        assert_eq!((v.len(), err), (frames, None), "{path}");
        assert_eq!(r.stats().drops, drops, "{path}");
        assert_eq!((r.stats().corrupt_records, r.stats().corrupt_buffers), (0, 0), "{path}");
    }
}
