//! The series table: each flow's state over time, one row per packet that describes the
//! flow's data direction (its data segments and the receiver's ACKs), with the sending
//! and acknowledging rates over a trailing window.
//!
//! The window of each flow comes from the diagnosis pass (one smoothed RTT, at least
//! 1/200 of the flow's duration and 1 ms), so the rates follow the flow's own round trips.

use std::collections::VecDeque;

use ahash::AHashMap;
use arrow_array::RecordBatch;
use arrow_schema::ArrowError;

use super::columns::*;
use super::schema::{self, SERIES};
use crate::analyse::notes::{CwndConfidence, LimitState};
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::{flags, TcpSegment};
use crate::flow::{Placement, SeqNumber};
use crate::ingest::Frame;

/// What the series of one flow needs from the diagnosis.
#[derive(Debug, Clone, Copy)]
pub struct SeriesFlow {
    pub data_dir: u8,
    pub window_ns: i64,
}

/// Bytes of events in the trailing window, kept as a running sum.
#[derive(Debug, Default)]
struct Trailing {
    events: VecDeque<(i64, u64)>,
    sum: u64,
}

impl Trailing {
    fn push(&mut self, ts: i64, bytes: u64) {
        self.events.push_back((ts, bytes));
        self.sum += bytes;
    }

    /// Bits per second of the events in (now − window, now].
    fn rate(&mut self, now: i64, window: i64) -> f64 {
        while let Some(&(t, b)) = self.events.front() {
            if t > now - window {
                break;
            }
            self.events.pop_front();
            self.sum -= b;
        }
        self.sum as f64 * 8.0 / (window as f64 / 1e9)
    }
}

#[derive(Debug)]
struct FlowRates {
    flow: SeriesFlow,
    /// The flow's first packet (`t` counts from it).
    first_ts: Option<i64>,
    sent: Trailing,
    acked: Trailing,
    highest_ack: Option<SeqNumber>,
}

#[derive(Default)]
pub struct SeriesColumns {
    flows: AHashMap<u32, FlowRates>,
    pub stream: Vec<u32>,
    pub frame: Vec<u64>,
    pub ts_ns: Vec<i64>,
    pub t: Vec<f64>,
    pub in_flight: Vec<u64>,
    pub rwnd: Vec<u64>,
    pub cwnd: Vec<Option<u64>>,
    pub cwnd_conf: Vec<u8>,
    pub limit: Vec<u8>,
    pub throughput_bps: Vec<f64>,
    pub goodput_bps: Vec<f64>,
    pub rtt_ms: Vec<Option<f64>>,
}

impl SeriesColumns {
    /// Series of the given flows (others are skipped).
    pub fn new(flows: impl IntoIterator<Item = (u32, SeriesFlow)>) -> SeriesColumns {
        let flows = flows
            .into_iter()
            .map(|(s, flow)| {
                let flow = SeriesFlow { window_ns: flow.window_ns.max(1), ..flow };
                (s, FlowRates { flow, first_ts: None, sent: Trailing::default(), acked: Trailing::default(), highest_ack: None })
            })
            .collect();
        SeriesColumns { flows, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.frame.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frame.is_empty()
    }

    /// The rows so far as a batch; the rate state carries on to the next chunk.
    pub fn take_batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let conf: Vec<&str> = CwndConfidence::ALL.iter().map(|c| c.name()).collect();
        let limit: Vec<&str> = LimitState::ALL.iter().map(|l| l.name()).collect();
        batch(
            schema::schema(&[SERIES]),
            vec![
                u32s(std::mem::take(&mut self.stream)),
                u64s(std::mem::take(&mut self.frame)),
                times(std::mem::take(&mut self.ts_ns)),
                f64s(std::mem::take(&mut self.t)),
                u64s(std::mem::take(&mut self.in_flight)),
                u64s(std::mem::take(&mut self.rwnd)),
                opt_u64s(std::mem::take(&mut self.cwnd)),
                codes(std::mem::take(&mut self.cwnd_conf), &conf),
                codes(std::mem::take(&mut self.limit), &limit),
                f64s(std::mem::take(&mut self.throughput_bps)),
                f64s(std::mem::take(&mut self.goodput_bps)),
                opt_f64s(std::mem::take(&mut self.rtt_ms)),
            ],
        )
    }
}

impl NotesSink for SeriesColumns {
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, n: &PacketNotes) {
        let Some(f) = self.flows.get_mut(&place.flow) else { return };
        let dd = f.flow.data_dir;
        let ts = frame.ts_ns;
        let first = *f.first_ts.get_or_insert(ts);
        let dir = place.dir as u8;
        if dir == dd && seg.payload_len > 0 {
            f.sent.push(ts, seg.payload_len as u64);
        }
        if dir != dd && seg.flags & flags::ACK != 0 {
            let ack = SeqNumber(seg.ack);
            // Newly acknowledged bytes: the cumulative ACK's advance (a step back or more
            // than 2 GiB forward is not an advance).
            let advance = match f.highest_ack {
                Some(h) if ack > h => ack.distance_from(h) as u64,
                Some(_) => 0,
                None => 0,
            };
            if f.highest_ack.is_none_or(|h| ack > h) {
                f.highest_ack = Some(ack);
            }
            f.acked.push(ts, advance);
        }
        if n.data_dir != dd {
            return;
        }
        let w = f.flow.window_ns;
        self.stream.push(place.flow);
        self.frame.push(frame.number);
        self.ts_ns.push(ts);
        self.t.push(ts.saturating_sub(first) as f64 / 1e9);
        self.in_flight.push(n.in_flight);
        self.rwnd.push(n.rwnd);
        self.cwnd.push((n.cwnd_conf != CwndConfidence::None).then_some(n.cwnd));
        self.cwnd_conf.push(n.cwnd_conf as u8);
        self.limit.push(n.limit as u8);
        self.throughput_bps.push(f.sent.rate(ts, w));
        self.goodput_bps.push(f.acked.rate(ts, w));
        self.rtt_ms.push(n.rtt_ns.map(|r| r as f64 / 1e6));
    }
}
