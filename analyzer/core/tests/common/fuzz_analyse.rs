// The analyse fuzz target's body, `include!`d by `fuzz/fuzz_targets/analyse.rs` (libFuzzer)
// and by `analyse_fuzz_replay.rs` (stable CI): arbitrary segment sequences through the flow
// table, the per-packet analysis (`Analyzer`, i.e. `FlowState::on_segment`) and the verdict
// (`verdict::judge`), with the invariants every capture must keep. The engine must never
// panic, and:
// - in flight ≤ unacknowledged on every packet;
// - receive windows within what a 16-bit field scaled by at most 2^14 can say;
// - every time share of a limit state in [0, 1], the busy states' shares summing to ≤ 1;
//   every finding's share in [0, 1] and finite;
// - frames named by notes and findings exist (1 ..= frames fed).
//
// Input: a header byte (IPv6 or not, flags of the SYN options), then one segment per
// `SEGMENT_LEN` bytes. Sequence and acknowledgement numbers are steps from what each side
// sent last, so short inputs already make handshakes, bulk data, holes and SACKs.

use tcpdiag_core::analyse::verdict::JudgeOptions;
use tcpdiag_core::analyse::{Analyzer, NotesSink, PacketNotes};
use tcpdiag_core::decode::{Addr, TcpSegment};
use tcpdiag_core::flow::table::{FlowTable, Placement};
use tcpdiag_core::ingest::Frame;
use tcpdiag_core::pipeline::SegmentSink;

const SEGMENT_LEN: usize = 14;
/// Largest window a peer can announce: 65535 << 14.
const MAX_RWND: u64 = 65_535 << 14;

/// Checks every packet's notes as they come out of the analysis.
struct Checked {
    frames: u64,
}

impl NotesSink for Checked {
    fn packet(&mut self, frame: &Frame<'_>, _: &TcpSegment, _: Placement, n: &PacketNotes) {
        assert!(n.in_flight <= n.unacked, "frame {}: in flight {} > unacked {}", frame.number, n.in_flight, n.unacked);
        assert!(n.rwnd <= MAX_RWND, "frame {}: rwnd {}", frame.number, n.rwnd);
        for f in [n.retrans_of, n.spurious_of, n.dup_ack_of] {
            assert!(f <= self.frames, "frame {}: refers to frame {f} of {}", frame.number, self.frames);
        }
    }
}

/// Per direction: the next sequence number, the last TSval.
#[derive(Default, Clone, Copy)]
struct Side {
    next_seq: u32,
    tsval: u32,
}

fn analyse_everything(data: &[u8]) {
    let Some((&head, body)) = data.split_first() else { return };
    let a = if head & 1 != 0 { Addr([0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) } else { Addr::v4([10, 0, 0, 1]) };
    let b = if head & 1 != 0 { Addr([0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]) } else { Addr::v4([10, 0, 0, 2]) };
    let count = body.len() / SEGMENT_LEN;
    let mut table = FlowTable::new();
    let mut analyzer = Analyzer::new(Checked { frames: count as u64 }, JudgeOptions::default());
    let mut sides = [Side { next_seq: 1_000, tsval: 1 }, Side { next_seq: 900_000, tsval: 7 }];
    let mut ts: i64 = 1_700_000_000_000_000_000;
    for (i, r) in body.chunks_exact(SEGMENT_LEN).enumerate() {
        let d = (r[0] & 1) as usize;
        let kind = r[0] >> 1;
        let step = |at: usize| i16::from_le_bytes([r[at], r[at + 1]]) as i32;
        let (me, peer) = (sides[d], sides[1 - d]);
        let seq = me.next_seq.wrapping_add_signed(step(2));
        let ack = peer.next_seq.wrapping_add_signed(step(4));
        let payload_len = u16::from_le_bytes([r[8], r[9]]) as u32 % 9_001;
        let gap = u16::from_le_bytes([r[10], r[11]]) as i64;
        ts += if kind & 0x20 != 0 { gap * 1_000_000 } else { gap * 1_000 };
        let mut seg = TcpSegment {
            src: if d == 0 { a } else { b },
            dst: if d == 0 { b } else { a },
            ip_version: if head & 1 != 0 { 6 } else { 4 },
            tos: r[13] & 3,
            ttl: 64,
            ip_id: i as u16,
            sport: if d == 0 { 40_000 } else { 443 },
            dport: if d == 0 { 443 } else { 40_000 },
            seq,
            ack,
            flags: r[1] as u16 | (((r[13] >> 2) & 1) as u16) << 8,
            window: u16::from_le_bytes([r[6], r[7]]),
            header_len: 20,
            payload_len,
            payload_captured: 0,
            options: Default::default(),
            tunnel_depth: 0,
            in_icmp_error: kind & 0x40 != 0 && r[12] == 0xff,
        };
        if seg.flags & 0x02 != 0 {
            seg.options.mss = (head & 2 != 0).then_some(1_460);
            seg.options.wscale = (head & 4 != 0).then_some(r[12] & 0x0f);
            seg.options.sack_permitted = head & 8 != 0;
        }
        if kind & 1 != 0 {
            sides[d].tsval = me.tsval.wrapping_add(r[12] as u32);
            seg.options.timestamps = Some((sides[d].tsval, peer.tsval.wrapping_sub((r[13] >> 3) as u32)));
        }
        // SACK blocks above the acknowledgement (or a D-SACK below it), from the same steps.
        let blocks = (kind >> 1) & 3;
        for k in 0..blocks as usize {
            let left = ack.wrapping_add_signed(step(2 + 2 * k) * 8);
            let len = 1 + (r[12 + k % 2] as u32) * 100;
            seg.options.sack[k] = (left, left.wrapping_add(len));
        }
        seg.options.sack_count = blocks;
        let end = seq.wrapping_add(payload_len).wrapping_add((seg.flags & 0x03 != 0) as u32);
        if kind & 0x10 == 0 || end.wrapping_sub(sides[d].next_seq) as i32 > 0 {
            sides[d].next_seq = end;
        }
        let number = i as u64 + 1;
        let frame = Frame { number, ts_ns: ts, caplen: 0, origlen: 54 + payload_len, interface: 0, linktype: 101, data: &[], options: None };
        if seg.in_icmp_error {
            table.place_quoted(&seg, number, ts);
            continue;
        }
        let place = table.place(&seg, number, ts, frame.origlen, true);
        analyzer.segment(&frame, &seg, place);
    }
    let flows = table.flows();
    let (verdicts, _) = analyzer.finish(flows);
    assert_eq!(verdicts.len(), flows.len());
    for (i, v) in verdicts.iter().enumerate() {
        // Every sentence a surface prints renders, whatever the numbers.
        let _ = (v.transfer_line(), v.time_line(), v.ceiling.as_ref().map(|c| c.lines()));
        for f in &v.findings {
            let _ = (f.message(), f.remedy());
        }
        let busy = v.busy_ns.max(1) as f64;
        let mut busy_share = 0.0;
        for (k, &ns) in v.state_ns.iter().enumerate() {
            assert!(ns >= 0, "flow {i}: state {k} lasted {ns} ns");
            // Unknown (0) and Idle (7) are not busy time; the others are its parts.
            if (1..7).contains(&k) {
                let share = ns as f64 / busy;
                assert!((0.0..=1.0 + 1e-9).contains(&share), "flow {i}: state {k} share {share}");
                busy_share += share;
            }
        }
        assert!(busy_share <= 1.0 + 1e-9, "flow {i}: busy shares sum to {busy_share}");
        assert!(v.rwnd_max <= MAX_RWND && v.rwnd_min.is_none_or(|m| m <= v.rwnd_max), "flow {i}: rwnd {:?}..{}", v.rwnd_min, v.rwnd_max);
        assert!(v.goodput_bps.is_finite() && v.goodput_bps >= 0.0, "flow {i}: goodput {}", v.goodput_bps);
        assert!(!v.findings.is_empty(), "flow {i}: no finding");
        for f in &v.findings {
            assert!(f.share.is_finite() && (0.0..=1.0 + 1e-9).contains(&f.share), "flow {i}: {:?} share {}", f.id, f.share);
            for &fr in &f.frames {
                assert!((1..=count as u64).contains(&fr), "flow {i}: {:?} names frame {fr} of {count}", f.id);
            }
        }
    }
}
