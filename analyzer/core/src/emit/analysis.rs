//! The analysis columns of the packets table: what ④ analyse says about each segment
//! (see `analyse::notes::PacketNotes`). Names are shared with the Wireshark plugin's
//! `tcpdiag.*` fields and with docs/tables.md.

use super::packets::PacketColumns;
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::TcpSegment;
use crate::flow::Placement;
use crate::ingest::Frame;
use crate::pipeline::SegmentSink;

pub const COLUMNS: [&str; 25] = [
    "data_dir", "rwnd", "rwnd_basis", "in_flight", "unacked", "sacked", "cwnd", "cwnd_conf", "limit",
    "retrans", "retrans_of", "dsack", "spurious_of", "spurious_by", "reorder_packets", "reorder_bytes",
    "reorder_ns", "lost_before", "dup_ack", "zero_window", "zero_window_probe", "window_full", "keepalive",
    "duplicate", "rtt_ns",
];

/// A chunk of the packets table with the analysis columns beside the wire columns.
#[derive(Default)]
pub struct AnalysisColumns {
    pub wire: PacketColumns,
    pub data_dir: Vec<u8>,
    pub rwnd: Vec<u64>,
    /// 0 known, 1 not negotiated (unscaled), 2 inferred lower bound.
    pub rwnd_basis: Vec<u8>,
    pub in_flight: Vec<u64>,
    pub unacked: Vec<u64>,
    pub sacked: Vec<u64>,
    pub cwnd: Vec<u64>,
    pub cwnd_conf: Vec<u8>,
    pub limit: Vec<u8>,
    pub retrans: Vec<u8>,
    pub retrans_of: Vec<u64>,
    pub dsack: Vec<bool>,
    pub spurious_of: Vec<u64>,
    pub spurious_by: Vec<u8>,
    pub reorder_packets: Vec<u32>,
    pub reorder_bytes: Vec<u32>,
    pub reorder_ns: Vec<i64>,
    pub lost_before: Vec<u32>,
    pub dup_ack: Vec<u32>,
    pub zero_window: Vec<bool>,
    pub zero_window_probe: Vec<bool>,
    pub window_full: Vec<bool>,
    pub keepalive: Vec<bool>,
    pub duplicate: Vec<bool>,
    /// RTT sample carried by this ACK, −1 if none.
    pub rtt_ns: Vec<i64>,
    /// SACK blocks as a side table (most rows carry none): row index in this chunk and the
    /// raw edges, in the order the option lists them (the first may be a DSACK).
    pub sack_row: Vec<u32>,
    pub sack_left: Vec<u32>,
    pub sack_right: Vec<u32>,
}

impl AnalysisColumns {
    pub fn len(&self) -> usize {
        self.wire.len()
    }
    pub fn is_empty(&self) -> bool {
        self.wire.is_empty()
    }
}

impl NotesSink for AnalysisColumns {
    #[inline]
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, n: &PacketNotes) {
        self.wire.segment(frame, seg, place);
        self.data_dir.push(n.data_dir);
        self.rwnd.push(n.rwnd);
        self.rwnd_basis.push(n.rwnd_basis.map_or(0, |b| b as u8));
        self.in_flight.push(n.in_flight);
        self.unacked.push(n.unacked);
        self.sacked.push(n.sacked);
        self.cwnd.push(n.cwnd);
        self.cwnd_conf.push(n.cwnd_conf as u8);
        self.limit.push(n.limit as u8);
        self.retrans.push(n.retrans as u8);
        self.retrans_of.push(n.retrans_of);
        self.dsack.push(n.dsack);
        self.spurious_of.push(n.spurious_of);
        self.spurious_by.push(n.spurious_by as u8);
        let r = n.reorder.unwrap_or_default();
        self.reorder_packets.push(r.packets);
        self.reorder_bytes.push(r.bytes);
        self.reorder_ns.push(if n.reorder.is_some() { r.late_ns } else { -1 });
        self.lost_before.push(n.lost_before);
        self.dup_ack.push(n.dup_ack);
        self.zero_window.push(n.zero_window);
        self.zero_window_probe.push(n.zero_window_probe);
        self.window_full.push(n.window_full);
        self.keepalive.push(n.keepalive);
        self.duplicate.push(n.duplicate);
        self.rtt_ns.push(n.rtt_ns.unwrap_or(-1));
        let row = self.rtt_ns.len() as u32 - 1;
        for &(left, right) in seg.options.sack_blocks() {
            self.sack_row.push(row);
            self.sack_left.push(left);
            self.sack_right.push(right);
        }
    }
}
