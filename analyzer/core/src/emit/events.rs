//! The events table: one row per packet event of the catalogue — retransmissions, spurious
//! ones, D-SACKs, reordering, lost segments, duplicate ACKs, zero windows and probes, full
//! windows, inferred window scales — each with its message rendered by the engine.

use arrow_array::RecordBatch;
use arrow_schema::ArrowError;

use super::columns::*;
use super::flows_table::finding_names;
use super::schema::{self, EVENT};
use crate::analyse::catalogue::FindingId;
use crate::analyse::finding::{fill, Value};
use crate::analyse::notes::RetransKind;
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::TcpSegment;
use crate::flow::Placement;
use crate::ingest::Frame;

#[derive(Default)]
pub struct EventColumns {
    pub frame: Vec<u64>,
    pub stream: Vec<u32>,
    pub ts_ns: Vec<i64>,
    pub kind: Vec<u8>,
    pub related: Vec<Option<u64>>,
    pub message: Vec<String>,
}

impl EventColumns {
    pub fn len(&self) -> usize {
        self.frame.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frame.is_empty()
    }

    fn push(&mut self, frame: u64, stream: u32, ts: i64, id: FindingId, related: u64, message: String) {
        self.frame.push(frame);
        self.stream.push(stream);
        self.ts_ns.push(ts);
        self.kind.push(id as u8);
        self.related.push((related != 0).then_some(related));
        self.message.push(message);
    }

    pub fn into_batch(self) -> Result<RecordBatch, ArrowError> {
        batch(
            schema::schema(&[EVENT]),
            vec![
                u64s(self.frame),
                u32s(self.stream),
                times(self.ts_ns),
                codes(self.kind, &finding_names()),
                opt_u64s(self.related),
                words(self.message),
            ],
        )
    }
}

impl NotesSink for EventColumns {
    fn packet(&mut self, frame: &Frame<'_>, _: &TcpSegment, place: Placement, n: &PacketNotes) {
        packet_events(frame.number, frame.ts_ns, n, |f, ts, id, related, message| {
            self.push(f, place.flow, ts, id, related, message)
        });
    }
}

/// The catalogue events a packet's notes raise, in catalogue order, each handed to `each`
/// as (frame it belongs to, that frame's time, id, related frame or 0, rendered message):
/// the one list the events table and the Wireshark plugin's expert infos
/// (emit/annotations.rs) are made from.
pub fn packet_events(f: u64, ts: i64, n: &PacketNotes, mut each: impl FnMut(u64, i64, FindingId, u64, String)) {
    let mut each = |f: u64, ts: i64, id: FindingId, related: u64, values: &[(&'static str, Value)]| {
        each(f, ts, id, related, fill(id.entry().message, values))
    };
    if n.retrans != RetransKind::None {
        let v = [("orig_frame", Value::Frame(n.retrans_of)), ("kind", Value::text(n.retrans.name()))];
        each(f, ts, FindingId::Retransmission, n.retrans_of, &v);
    }
    if n.spurious_of != 0 {
        // Shown on the retransmission it proves spurious; this ACK is the evidence.
        let v = [
            ("orig_frame", Value::Frame(n.spurious_orig)),
            ("evidence", Value::text(n.spurious_by.words())),
            ("evidence_frame", Value::Frame(f)),
        ];
        each(n.spurious_of, n.spurious_ts, FindingId::SpuriousRetransmission, f, &v);
    }
    if n.dsack {
        let (l, r) = n.dsack_edges;
        let v = [("left", Value::Seq(l as u64)), ("right", Value::Seq(r as u64))];
        each(f, ts, FindingId::Dsack, 0, &v);
    }
    if let Some(r) = n.reorder {
        let v = [
            ("extent_packets", Value::Int(r.packets as i64)),
            ("extent_bytes", Value::Bytes(r.bytes as u64)),
            ("extent", Value::Ms(r.late_ns as f64 / 1e6)),
            ("rack", Value::Ms(n.rack_ns as f64 / 1e6)),
        ];
        each(f, ts, FindingId::Reordering, 0, &v);
    }
    if n.lost_before > 0 {
        each(f, ts, FindingId::LostSegment, 0, &[("gap", Value::Bytes(n.lost_before as u64))]);
    }
    if n.dup_ack > 0 {
        let v = [("count", Value::Int(n.dup_ack as i64)), ("orig_frame", Value::Frame(n.dup_ack_of))];
        each(f, ts, FindingId::DuplicateAck, n.dup_ack_of, &v);
    }
    if n.zero_window {
        each(f, ts, FindingId::ZeroWindow, 0, &[]);
    }
    if n.zero_window_probe {
        each(f, ts, FindingId::ZeroWindowProbe, 0, &[]);
    }
    if n.window_full {
        let v = [("in_flight", Value::Bytes(n.unacked)), ("rwnd", Value::Bytes(n.rwnd))];
        each(f, ts, FindingId::WindowFull, 0, &v);
    }
    if let Some((shift, flight)) = n.inferred_shift {
        let v = [("shift", Value::Int(shift as i64)), ("in_flight", Value::Bytes(flight))];
        each(f, ts, FindingId::WindowScaleInferred, 0, &v);
    }
}
