//! Paths no corpus file exercises, on generated traces: ndiscap fragments (1001/1002),
//! media types and truncation, Microsoft-Windows-TCPIP events through an embedded schema
//! and their Tcb → 4-tuple mapping, every clock type, 32- and 64-bit writers, compression
//! on and off.

mod common;

use std::io::Cursor;

use common::*;
use tcpdiag_etl::builtin::{NDIS_PACKET_CAPTURE, TCPIP};
use tcpdiag_etl::ndiscap::keyword as kw;
use tcpdiag_etl::schema::in_type;
use tcpdiag_etl::tcpip::Value;
use tcpdiag_etl::{Direction, EtlReader, InterfaceKey, Observation};

fn fragment(miniport: u32, lower: u32, bytes: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    for v in [miniport, lower, bytes.len() as u32] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(bytes);
    p.extend_from_slice(&[0; 16]); // GftFlowEntryId, GftOffloadInformation
    p
}

fn ipv4_in_ethernet(total_len: u16, captured: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45, 0];
    f.extend_from_slice(&total_len.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    f.resize(captured, 0xAB);
    f
}

#[test]
fn ndiscap_fragments_media_and_truncation() {
    let one = kw::PACKET_START | kw::PACKET_END;
    let eth = ipv4_in_ethernet(60 - 14, 60);
    let big = ipv4_in_ethernet(1500, 200); // truncated at capture: 200 of 1514 bytes
    let mut wifi = vec![0x08, 0x41]; // data, ToDS, Protected
    wifi.extend_from_slice(&[0; 22]);
    wifi.extend_from_slice(&[0xAA, 0xAA, 3, 0, 0, 0, 0x08, 0x00]);
    wifi.extend_from_slice(&eth[14..]);
    let mut meta = Vec::new();
    for v in [5u32, 5, 48] {
        meta.extend_from_slice(&v.to_le_bytes());
    }
    let mut m = vec![0u8; 48];
    m[8] = 7; // PHY 802.11n
    m[12..16].copy_from_slice(&5180u32.to_le_bytes());
    m[20..24].copy_from_slice(&(-52i32).to_le_bytes());
    meta.extend_from_slice(&m);
    let raw = eth[14..].to_vec();
    let n = |id, k, t, p: &[u8]| event_record(NDIS_PACKET_CAPTURE, id, k, START_QPC + t, 100, 200, p);
    let records = vec![
        n(1001, one | kw::RECEIVE, 1, &fragment(3, 3, &eth)),
        n(1001, kw::PACKET_START | kw::SEND, 2, &fragment(3, 7, &big[..120])),
        n(1001, kw::PACKET_END | kw::SEND, 3, &fragment(3, 7, &big[120..])),
        n(1002, kw::MEDIA_NATIVE_802_11, 4, &meta),
        n(1001, one | kw::MEDIA_NATIVE_802_11 | kw::RECEIVE, 5, &fragment(5, 5, &wifi)),
        n(1001, one | kw::MEDIA_WIRELESS_WAN | kw::SEND, 6, &fragment(9, 9, &raw)),
    ];
    let mut f = header_buffer(4096, 2, 0, 0);
    f.extend(event_buffer(&records, 0, true, 0));
    let mut r = EtlReader::from_reader(Cursor::new(f), every_copy()).unwrap();
    let (v, e) = all_frames(&mut r);
    assert_eq!(e, None);
    assert_eq!(v.len(), 4);
    assert_eq!((v[0].linktype, v[0].direction, v[0].data.len(), v[0].origlen), (1, Direction::Inbound, 60, 60));
    assert_eq!((v[1].direction, &v[1].data, v[1].origlen), (Direction::Outbound, &big, 1514));
    assert_eq!(v[1].observation, Observation::Ndis { miniport_if_index: 3, lower_if_index: 7 });
    assert_eq!((v[2].linktype, v[2].data[1]), (105, 0x01), "802.11 Protected bit cleared");
    assert!(v[2].options.comments[0].contains("802.11n") && v[2].options.comments[0].contains("-52"));
    assert_eq!((v[3].linktype, v[3].origlen, v[3].options.flags), (101, 46, Some(2)));
    assert!(v[0].options.comments[0].contains("PID=100 TID=200"));
    let ifaces = r.interfaces();
    assert_eq!(ifaces.len(), 4);
    assert_eq!(ifaces[1].key, InterfaceKey::IfIndex { miniport: 3, lower: 7 });
    assert_eq!(ifaces[1].description, "filter over IfIndex 3");
}

#[test]
fn tcpip_events_decode_through_the_embedded_schema() {
    const PARAM_LENGTH: u32 = 2;
    let schema = schema_record(
        TCPIP,
        1332,
        0,
        &[
            ("LocalAddressLength", in_type::UINT32, 0, 1, 0),
            ("LocalAddress", in_type::BINARY, PARAM_LENGTH, 1, 0),
            ("Tcb", in_type::POINTER, 0, 1, 0),
            ("BytesSent", in_type::UINT32, 0, 1, 0),
            ("SndWnd", in_type::UINT32, 0, 1, 0),
            ("Cwnd", in_type::UINT32, 0, 1, 0),
            ("SRtt", in_type::UINT32, 0, 1, 0),
            ("Name", in_type::UNICODESTRING, 0, 1, 0),
        ],
    );
    let mut p = Vec::new();
    p.extend_from_slice(&16u32.to_le_bytes());
    p.extend_from_slice(&[2, 0, 0x1F, 0x90, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    p.extend_from_slice(&0xFFFF_8000_1234_5678u64.to_le_bytes());
    for v in [1460u32, 65535, 14600, 23] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend("conn\0".encode_utf16().flat_map(|u| u.to_le_bytes()));
    let ev = event_record(TCPIP, 1332, 0x8000_0000_0000, START_QPC + 50, 4, 5, &p);
    let unknown = event_record(TCPIP, 9999, 0, START_QPC + 60, 4, 5, &[1, 2, 3]);
    let mut f = header_buffer(4096, 2, 0, 0);
    f.extend(event_buffer(&[schema, ev, unknown], 0, false, 4096));
    let mut r = EtlReader::from_reader(Cursor::new(f), every_copy()).unwrap();
    let (v, e) = all_frames(&mut r);
    assert_eq!((v.len(), e), (0, None));
    let rows: Vec<_> = r.tcpip().of_event(1332).collect();
    assert_eq!(rows.len(), 1);
    let row = rows[0];
    assert_eq!((row.uint("Cwnd"), row.uint("SndWnd"), row.uint("SRtt")), (Some(14600), Some(65535), Some(23)));
    assert_eq!(row.uint("Tcb"), Some(0xFFFF_8000_1234_5678));
    assert_eq!(row.get("Name"), Some(&Value::Text("conn".into())));
    assert!(matches!(row.get("LocalAddress"), Some(Value::Bytes(b)) if b.len() == 16));
    assert_eq!(r.tcpip().rows.len(), 1, "events without a schema are not guessed");
    assert_eq!(r.stats().schemas, 1);
}

fn pktmon_packet(group: u64) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&group.to_le_bytes());
    for v in [1u16, 1, 1, 1, 5, 1, 0] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&[0; 8]);
    p.extend_from_slice(&60u16.to_le_bytes());
    p.extend_from_slice(&60u16.to_le_bytes());
    p.extend_from_slice(&ipv4_in_ethernet(46, 60));
    p
}

#[test]
fn every_clock_type_and_pointer_width_gives_unix_time() {
    use tcpdiag_etl::builtin::PKTMON;
    let start_ns = (START_FT - tcpdiag_etl::logfile::FILETIME_UNIX_EPOCH) * 100;
    // One microsecond after the header event, in each clock's units.
    for (clock, one_us) in [(Clock::Qpc, PERF_FREQ / 1_000_000), (Clock::SystemTime, 10), (Clock::CpuCycle, CPU_MHZ as i64)] {
        for ptr64 in [true, false] {
            for compressed in [false, true] {
                let ev = event_record_with(PKTMON, 160, 0x10, clock.base() + 3 * one_us, 4, 8, &pktmon_packet(7), ptr64);
                let mut f = header_buffer_with(4096, 2, 0, 0, clock, ptr64);
                f.extend(event_buffer(&[ev], 0, compressed, 4096));
                let mut r = EtlReader::from_reader(Cursor::new(f), every_copy()).unwrap();
                assert_eq!(r.header().pointer_size, if ptr64 { 8 } else { 4 });
                let (v, e) = all_frames(&mut r);
                assert_eq!(e, None, "{clock:?} ptr64={ptr64}");
                assert_eq!(v.len(), 1);
                assert_eq!(v[0].ts_ns, start_ns + 3_000, "{clock:?} ptr64={ptr64} compressed={compressed}");
                assert_eq!(r.stats().compressed_buffers, compressed as u64);
            }
        }
    }
}

const PARAM_LENGTH: u32 = 2;

fn sockaddr_v4(ip: [u8; 4], port: u16) -> Vec<u8> {
    let mut s = vec![2, 0];
    s.extend_from_slice(&port.to_be_bytes());
    s.extend_from_slice(&ip);
    s.extend_from_slice(&[0; 8]);
    s
}

fn lifecycle(tcb: u64, local: &[u8], remote: &[u8], ptr: usize) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&(local.len() as u32).to_le_bytes());
    p.extend_from_slice(local);
    p.extend_from_slice(&(remote.len() as u32).to_le_bytes());
    p.extend_from_slice(remote);
    p.extend_from_slice(&[0; 12]); // Status, ProcessId, Compartment
    p.extend_from_slice(&tcb.to_le_bytes()[..ptr]);
    p
}

fn send_state(tcb: u64, cwnd: u32, ptr: usize) -> Vec<u8> {
    let mut p = tcb.to_le_bytes()[..ptr].to_vec();
    for v in [cwnd, 65_535, 1_460, 12] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p
}

fn tcpip_schemas() -> Vec<Vec<u8>> {
    // Address lengths are given by the property before each address (PARAM_LENGTH).
    let mut life = vec![
        ("LocalAddressLength", in_type::UINT32, 0, 1, 0),
        ("LocalAddress", in_type::BINARY, PARAM_LENGTH, 1, 0),
        ("RemoteAddressLength", in_type::UINT32, 0, 1, 0),
        ("RemoteAddress", in_type::BINARY, PARAM_LENGTH, 1, 2),
    ];
    for n in ["Status", "ProcessId", "Compartment"] {
        life.push((n, in_type::UINT32, 0, 1, 0));
    }
    life.push(("Tcb", in_type::POINTER, 0, 1, 0));
    let send = [
        ("Tcb", in_type::POINTER, 0, 1, 0),
        ("Cwnd", in_type::UINT32, 0, 1, 0),
        ("SndWnd", in_type::UINT32, 0, 1, 0),
        ("BytesSent", in_type::UINT32, 0, 1, 0),
        ("SRtt", in_type::UINT32, 0, 1, 0),
    ];
    vec![
        schema_record_task(TCPIP, 1033, 0, "TcpConnectTcbComplete", &life),
        schema_record_task(TCPIP, 1038, 0, "TcpCloseTcbRequest", &life),
        schema_record_task(TCPIP, 1332, 0, "TcpDataTransferSend", &send),
    ]
}

#[test]
fn tcpip_tcb_becomes_a_four_tuple_with_time_bounds() {
    for ptr64 in [true, false] {
        let ptr = if ptr64 { 8 } else { 4 };
        let tcb = if ptr64 { 0xFFFF_A000_0000_1230 } else { 0x8123_4560 };
        let (me, a, b) = (sockaddr_v4([10, 0, 0, 1], 50_000), sockaddr_v4([10, 0, 0, 2], 443), sockaddr_v4([10, 0, 0, 3], 80));
        let ev = |id, t, p: Vec<u8>| event_record_with(TCPIP, id, 0, START_QPC + t, 4, 5, &p, ptr64);
        let mut records = tcpip_schemas();
        records.extend([
            ev(1332, 5, send_state(tcb, 2_920, ptr)), // before any name: the first connection's
            ev(1033, 10, lifecycle(tcb, &me, &a, ptr)),
            ev(1332, 20, send_state(tcb, 14_600, ptr)),
            ev(1038, 30, lifecycle(tcb, &me, &a, ptr)),
            ev(1332, 35, send_state(tcb, 1, ptr)), // closed and not renamed: nobody's
            ev(1033, 40, lifecycle(tcb, &me, &b, ptr)), // the Tcb address reused
            ev(1332, 50, send_state(tcb, 29_200, ptr)),
        ]);
        let mut f = header_buffer_with(8192, 2, 0, 0, Clock::Qpc, ptr64);
        f.extend(event_buffer(&records, 0, true, 8192));
        let mut r = EtlReader::from_reader(Cursor::new(f), every_copy()).unwrap();
        let (_, e) = all_frames(&mut r);
        assert_eq!(e, None);
        let t = r.tcpip();
        assert_eq!(t.rows.len(), 7, "ptr64={ptr64}");
        assert_eq!(t.rows[0].name, "TcpDataTransferSend");
        let conns = t.connections();
        assert_eq!(conns.len(), 2);
        assert_eq!((conns[0].tcb, conns[0].remote.to_string().as_str()), (tcb, "10.0.0.2:443"));
        assert_eq!(conns[1].remote.to_string(), "10.0.0.3:80");
        let which = t.resolve(&conns);
        let cwnd_and_conn: Vec<_> = t.rows.iter().zip(&which).filter(|(row, _)| row.event_id == 1332).map(|(row, c)| (row.uint("Cwnd").unwrap(), *c)).collect();
        assert_eq!(cwnd_and_conn, [(2_920, Some(0)), (14_600, Some(0)), (1, None), (29_200, Some(1))], "ptr64={ptr64}");
    }
}
