//! ETL → pcapng: every corpus trace converts in both modes; the output reads back with
//! tcpdiag's own pcapng reader; the demikernel trace matches the Windows conversion
//! packet for packet; etl2pcapng mode keeps that tool's conventions and bugs.

mod common;

use std::io::Cursor;

use common::*;
use tcpdiag_core::ingest::{CaptureReader, InterfaceInfo};
use tcpdiag_etl::builtin::{NDIS_PACKET_CAPTURE, PKTMON};
use tcpdiag_etl::ndiscap::keyword as kw;
use tcpdiag_etl::{convert, convert_file, ComponentChoice, ConvertOptions, EtlReader, Mode};

/// (interface, ts_ns, origlen, data, flags, comments) of every packet, and the interfaces.
type Packet = (u32, i64, u32, Vec<u8>, Option<u32>, Vec<String>);

fn read_back(bytes: Vec<u8>) -> (Vec<InterfaceInfo>, Vec<Packet>) {
    let mut r = CaptureReader::from_read(Box::new(Cursor::new(bytes))).unwrap();
    let mut v = Vec::new();
    while let Some(f) = r.next_frame().unwrap() {
        let (flags, comments) = f.options.map(|o| (o.flags, o.comments.clone())).unwrap_or((None, vec![]));
        v.push((f.interface, f.ts_ns, f.origlen, f.data.to_vec(), flags, comments));
    }
    (r.interfaces().to_vec(), v)
}

fn opts(mode: Mode, component: &str) -> ConvertOptions {
    ConvertOptions { mode, component: component.parse().unwrap() }
}

#[test]
fn every_corpus_trace_converts_in_both_modes() {
    let Some(dir) = corpus_dir() else { return };
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    names.retain(|p| p.extension().is_some_and(|e| e == "etl"));
    names.sort();
    assert!(names.len() >= 8);
    for p in names {
        let mut every = EtlReader::open_with(&p, every_copy()).unwrap();
        let (frames, err) = all_frames(&mut every);
        assert_eq!(err, None);
        for (mode, component) in [(Mode::Default, "auto"), (Mode::Default, "all"), (Mode::Etl2pcapng, "auto")] {
            let (s, out) = convert_file(&p, Vec::new(), &opts(mode, component)).unwrap();
            assert!(s.error.is_none(), "{p:?} {mode:?}");
            let (ifaces, pkts) = read_back(out);
            assert_eq!(pkts.len() as u64, s.frames, "{p:?}");
            assert_eq!(ifaces.len() as u32, s.interfaces, "{p:?}");
            if component == "all" || mode == Mode::Etl2pcapng {
                assert_eq!(pkts.len(), frames.len(), "{p:?} {mode:?}: every copy");
                let truncated = pkts.iter().filter(|x| x.2 as usize > x.3.len()).count();
                assert_eq!(truncated, frames.iter().filter(|f| f.origlen as usize > f.data.len()).count(), "{p:?}");
            } else {
                assert!(pkts.len() <= frames.len());
            }
            for (i, (iface, ts, _, data, _, _)) in pkts.iter().enumerate() {
                let lt = ifaces[*iface as usize].linktype;
                assert!([1, 101, 105].contains(&lt), "{p:?}");
                if component == "all" && mode == Mode::Default {
                    assert_eq!((*ts, data), (frames[i].ts_ns, &frames[i].data), "{p:?} packet {}", i + 1);
                    assert_eq!(lt, frames[i].linktype);
                }
            }
        }
    }
}

#[test]
fn demikernel_conversion_matches_the_windows_reference_packet_for_packet() {
    let Some(dir) = corpus_dir() else { return };
    let reference = pcapng_packets(&std::fs::read(dir.join("pktmon_demikernel_icmp.pktmon-etl2pcap.pcapng")).unwrap());
    let etl = dir.join("pktmon_demikernel_icmp.etl");
    for o in [opts(Mode::Default, "all"), opts(Mode::Etl2pcapng, "auto")] {
        let (_, out) = convert_file(&etl, Vec::new(), &o).unwrap();
        let (_, ours) = read_back(out);
        assert_eq!(ours.len(), reference.len(), "{:?}", o.mode);
        for (i, (p, (ts_us, orig, data))) in ours.iter().zip(&reference).enumerate() {
            assert_eq!((p.1.div_euclid(1000) as u64, p.2, &p.3), (*ts_us, *orig, data), "{:?} packet {}", o.mode, i + 1);
        }
    }
}

#[test]
fn etl2pcapng_mode_keeps_its_conventions_on_pktmon() {
    let Some(dir) = corpus_dir() else { return };
    let etl = dir.join("pktmon_wifi_eth_drops.etl");
    let (s, out) = convert_file(&etl, Vec::new(), &opts(Mode::Etl2pcapng, "auto")).unwrap();
    let (ifaces, pkts) = read_back(out);
    assert!(pkts.iter().all(|p| p.4 == Some(1)), "every PktMon packet inbound (KW_SEND unset)");
    assert!(pkts.iter().all(|p| p.5.is_empty()), "no comments on PktMon packets");
    assert!(ifaces.iter().all(|i| i.snaplen == 65_535 && i.ts_resolution == tcpdiag_core::ingest::TsResolution::MICROS));
    // Wi-Fi-typed Ethernet frames stay 802.11 there: more 105 packets than the default mode.
    let per_type = |ifs: &[InterfaceInfo], ps: &[Packet], lt| ps.iter().filter(|p| ifs[p.0 as usize].linktype == lt).count();
    assert_eq!(per_type(&ifaces, &pkts, 105), 16_686);
    assert_eq!(s.frames, 30_132);
    let (_, out) = convert_file(&etl, Vec::new(), &opts(Mode::Default, "all")).unwrap();
    let (difs, dpk) = read_back(out);
    assert_eq!(per_type(&difs, &dpk, 105), 14_562);
    assert!(dpk.iter().any(|p| p.4 == Some(2)), "default mode: DirTag gives outbound packets");
    // Interfaces sorted by component id (PktMon has no MiniportIfIndex).
    let names: Vec<_> = ifaces.iter().map(|i| i.name.clone().unwrap_or_default()).collect();
    assert!(names.iter().all(|n| !n.is_empty()), "{names:?}");
}

/// An ndiscap trace: raw IP (mobile broadband), a Wi-Fi frame after its 1002 metadata,
/// and a send with a PID whose comment is long.
fn ndiscap_trace(compressed: bool) -> Vec<u8> {
    let one = kw::PACKET_START | kw::PACKET_END;
    let mut ip = vec![0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
    ip.resize(40, 0);
    let frag = |mini: u32, lower: u32, b: &[u8]| {
        let mut p = Vec::new();
        for v in [mini, lower, b.len() as u32] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(b);
        p
    };
    let mut meta = Vec::new();
    for v in [4u32, 4, 48] {
        meta.extend_from_slice(&v.to_le_bytes());
    }
    let mut m = vec![0u8; 48];
    m[8] = 8;
    m[12..16].copy_from_slice(&5500u32.to_le_bytes());
    meta.extend_from_slice(&m);
    let mut wifi = vec![0x08, 0x42];
    wifi.resize(24, 0);
    wifi.extend_from_slice(&[0xAA, 0xAA, 3, 0, 0, 0, 0x08, 0x00]);
    wifi.extend_from_slice(&ip);
    let n = |id, k, t, pid, p: &[u8]| event_record(NDIS_PACKET_CAPTURE, id, k, START_QPC + t, pid, 9, p);
    let recs = vec![
        n(1001, one | kw::MEDIA_WIRELESS_WAN | kw::SEND, 10, 4, &frag(7, 7, &ip)),
        n(1002, kw::MEDIA_NATIVE_802_11, 20, 4, &meta),
        n(1001, one | kw::MEDIA_NATIVE_802_11 | kw::RECEIVE, 30, 4, &frag(4, 4, &wifi)),
        n(1001, one | kw::RECEIVE, 40, 0, &frag(3, 12, &[&[0u8; 12][..], &[0x08, 0x00], &ip].concat())),
    ];
    let mut f = header_buffer(4096, 2, 0, 0);
    f.extend(event_buffer(&recs, 0, compressed, 4096));
    f
}

fn convert_bytes(bytes: &[u8], o: &ConvertOptions) -> (tcpdiag_etl::ConvertSummary, Vec<u8>) {
    convert(|ro| EtlReader::from_reader(Cursor::new(bytes.to_vec()), ro), Vec::new(), o).unwrap()
}

#[test]
fn etl2pcapng_mode_reproduces_its_ndiscap_bugs_and_default_mode_fixes_them() {
    for compressed in [false, true] {
        let t = ndiscap_trace(compressed);
        let (_, out) = convert_bytes(&t, &opts(Mode::Etl2pcapng, "auto"));
        let (ifs, p) = read_back(out);
        // Sorted by MiniportIfIndex; the filter over IfIndex 3 is described.
        let names: Vec<_> = ifs.iter().map(|i| (i.name.clone().unwrap(), i.description.clone(), i.linktype)).collect();
        assert_eq!(
            names,
            [
                ("eth:12:0".to_string(), Some("LWF over IfIndex 3".to_string()), 1),
                ("wifi:4".into(), None, 105),
                ("mbb:7".into(), None, 101)
            ]
        );
        assert_eq!((p[0].2, p[0].3.len()), (40 + 14, 40), "raw IP: original length 14 too long");
        assert_eq!(p[0].4, Some(2));
        assert_eq!(p[0].5, ["PID=4 TID=9"]);
        assert_eq!(p[1].5, ["PID=4 TID=9 Packet Metadata: ReceiveFlags:0x0, PhyType:802.11ac, CenterCh:5500, NumMPDUsReceived:0, RSSI:0, DataRate:0"]);
        assert_eq!(p[1].3[1], 0x02, "Protected bit cleared");
        assert_eq!(p[2].5, ["PID=0 TID=9"]);
        let (_, out) = convert_bytes(&t, &opts(Mode::Default, "all"));
        let (difs, d) = read_back(out);
        assert_eq!((d[0].2, difs[d[0].0 as usize].ts_resolution), (40, tcpdiag_core::ingest::TsResolution::NANOS));
        assert!(d[1].5[0].contains("802.11ac"));
    }
}

#[test]
fn long_comments_are_dropped_only_in_etl2pcapng_mode() {
    // A Hyper-V switch packet whose port and NIC names make the comment longer than 255.
    let long = "p".repeat(150);
    let mut p = Vec::new();
    for v in [2u32, 2, 77] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    for s in [long.as_str(), long.as_str(), "Synthetic"] {
        p.extend(s.encode_utf16().chain([0]).flat_map(|u| u.to_le_bytes()));
    }
    let frame = [&[0u8; 12][..], &[0x86, 0xDD], &[0x60; 40]].concat();
    for v in [0u32, frame.len() as u32] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&frame);
    let ev = event_record(NDIS_PACKET_CAPTURE, 1003, kw::PACKET_START | kw::PACKET_END, START_QPC + 5, 4, 4, &p);
    let mut t = header_buffer(4096, 2, 0, 0);
    t.extend(event_buffer(&[ev], 0, false, 4096));
    let (s, out) = convert_bytes(&t, &opts(Mode::Etl2pcapng, "auto"));
    let (ifs, pk) = read_back(out);
    assert_eq!(s.comments_dropped, 1);
    assert!(pk[0].5.is_empty());
    assert_eq!(ifs[0].name.as_deref(), Some(format!("vNIC:Synthetic:{long}:2:0").as_str()));
    let (_, out) = convert_bytes(&t, &opts(Mode::Default, "auto"));
    let (_, pk) = read_back(out);
    assert!(pk[0].5[0].len() > 255);
}

#[test]
fn damaged_trace_converts_up_to_the_damage() {
    let mut pkt = Vec::new();
    pkt.extend_from_slice(&1u64.to_le_bytes());
    for v in [1u16, 1, 1, 1, 5, 1, 0] {
        pkt.extend_from_slice(&v.to_le_bytes());
    }
    pkt.extend_from_slice(&[0; 8]);
    pkt.extend_from_slice(&60u16.to_le_bytes());
    pkt.extend_from_slice(&60u16.to_le_bytes());
    pkt.extend_from_slice(&[0x11; 60]);
    let ev = |t| event_record(PKTMON, 160, 0x10, START_QPC + t, 4, 4, &pkt);
    let mut t = header_buffer(1024, 3, 0, 0);
    t.extend(event_buffer(&[ev(1)], 0, false, 1024));
    t.extend(event_buffer(&[ev(2)], 0, false, 1024));
    t.truncate(t.len() - 10);
    for mode in [Mode::Default, Mode::Etl2pcapng] {
        let (s, out) = convert_bytes(&t, &opts(mode, "all"));
        let e = s.error.expect("truncation reported");
        assert_eq!((s.frames, e.frames_read, e.offset), (1, 1, 2048));
        assert_eq!(read_back(out).1.len(), 1);
    }
    let bad = convert(|ro| EtlReader::from_reader(Cursor::new(b"not an etl file at all".to_vec()), ro), Vec::new(), &ConvertOptions::default());
    assert!(matches!(bad, Err(tcpdiag_etl::ConvertError::Input(_))));
}

#[test]
fn component_choice_by_name_or_id() {
    let Some(dir) = corpus_dir() else { return };
    let etl = dir.join("pktmon_demikernel_icmp.etl");
    let r = EtlReader::open(&etl).unwrap();
    let c = r.components();
    assert_eq!(ComponentChoice::Name("MLX5".into()).resolve(c), Ok(tcpdiag_etl::ObservationFilter::Point(48)));
    assert!(ComponentChoice::Name("netvsc".into()).resolve(c).unwrap_err().starts_with("more than one"));
    assert!(ComponentChoice::Name("no such thing".into()).resolve(c).unwrap_err().contains("59 netvsc.sys"));
    let (s, _) = convert_file(&etl, Vec::new(), &opts(Mode::Default, "59")).unwrap();
    assert_eq!(s.frames, 38);
}
