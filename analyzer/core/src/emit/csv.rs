//! Streaming CSV for the packets table: rows are written as segments arrive, so memory
//! stays flat however long the capture is.

use std::io::{self, Write};

use super::analysis::COLUMNS as ANALYSIS_COLUMNS;
use super::packets::COLUMNS;
use crate::analyse::notes::{CwndConfidence, Evidence};
use crate::analyse::window::RwndBasis;
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::TcpSegment;
use crate::flow::Placement;
use crate::ingest::Frame;
use crate::pipeline::SegmentSink;

/// Formats nanoseconds since the epoch as seconds with nine decimals, as
/// `frame.time_epoch` prints.
pub fn epoch_seconds(ts_ns: i64) -> String {
    let sign = if ts_ns < 0 { "-" } else { "" };
    let abs = ts_ns.unsigned_abs();
    format!("{sign}{}.{:09}", abs / 1_000_000_000, abs % 1_000_000_000)
}

pub struct PacketCsv<W: Write> {
    out: W,
    /// The first write error; later rows are dropped and the error is reported at the end.
    pub error: Option<io::Error>,
    /// Rows end with the analysis columns (the sink is then fed through `NotesSink`).
    analysis: bool,
}

impl<W: Write> PacketCsv<W> {
    pub fn new(out: W) -> PacketCsv<W> {
        Self::with_columns(out, false)
    }

    /// The packets table with the analysis columns after the wire columns.
    pub fn with_analysis(out: W) -> PacketCsv<W> {
        Self::with_columns(out, true)
    }

    fn with_columns(mut out: W, analysis: bool) -> PacketCsv<W> {
        let mut header = COLUMNS.join(",");
        if analysis {
            header.push(',');
            header.push_str(&ANALYSIS_COLUMNS.join(","));
        }
        let error = writeln!(out, "{header}").err();
        PacketCsv { out, error, analysis }
    }

    fn wire(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) -> io::Result<()> {
        write!(
            self.out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            frame.number,
            place.flow,
            place.dir as u8,
            epoch_seconds(frame.ts_ns),
            seg.src.to_ip(),
            seg.sport,
            seg.dst.to_ip(),
            seg.dport,
            seg.seq,
            seg.ack,
            seg.payload_len,
            seg.flags,
            seg.window
        )
    }

    fn notes(&mut self, n: &PacketNotes) -> io::Result<()> {
        let r = n.reorder.unwrap_or_default();
        let opt = |x: i64, present: bool| if present { x.to_string() } else { String::new() };
        writeln!(
            self.out,
            ",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            n.data_dir,
            n.rwnd,
            n.rwnd_basis.map_or("", basis_name),
            n.in_flight,
            n.unacked,
            n.sacked,
            n.cwnd,
            conf_name(n.cwnd_conf),
            n.limit.name(),
            n.retrans.name(),
            n.retrans_of,
            n.dsack as u8,
            n.spurious_of,
            evidence_name(n.spurious_by),
            r.packets,
            r.bytes,
            opt(r.late_ns, n.reorder.is_some()),
            n.lost_before,
            n.dup_ack,
            n.zero_window as u8,
            n.zero_window_probe as u8,
            n.window_full as u8,
            n.keepalive as u8,
            n.duplicate as u8,
            opt(n.rtt_ns.unwrap_or(0), n.rtt_ns.is_some()),
        )
    }

    pub fn finish(mut self) -> io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

impl<W: Write> SegmentSink for PacketCsv<W> {
    fn stopped(&self) -> bool {
        self.error.is_some()
    }

    fn segment(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement) {
        if self.error.is_some() || self.analysis {
            return;
        }
        if let Err(e) = self.wire(frame, seg, place).and_then(|_| writeln!(self.out)) {
            self.error = Some(e);
        }
    }
}

impl<W: Write> NotesSink for PacketCsv<W> {
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, notes: &PacketNotes) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.wire(frame, seg, place).and_then(|_| self.notes(notes)) {
            self.error = Some(e);
        }
    }

    fn stopped(&self) -> bool {
        self.error.is_some()
    }
}

pub fn basis_name(b: RwndBasis) -> &'static str {
    match b {
        RwndBasis::Known => "known",
        RwndBasis::NotNegotiated => "not_negotiated",
        RwndBasis::Inferred => "inferred",
    }
}

pub fn conf_name(c: CwndConfidence) -> &'static str {
    match c {
        CwndConfidence::None => "none",
        CwndConfidence::Bound => "bound",
        CwndConfidence::Estimate => "estimate",
    }
}

pub fn evidence_name(e: Evidence) -> &'static str {
    match e {
        Evidence::None => "",
        Evidence::Dsack => "dsack",
        Evidence::Eifel => "eifel",
    }
}

#[cfg(test)]
mod tests {
    use super::epoch_seconds;

    #[test]
    fn epoch_seconds_pads_nanoseconds() {
        assert_eq!(epoch_seconds(1_236_095_711_960_416_000), "1236095711.960416000");
        assert_eq!(epoch_seconds(5), "0.000000005");
        assert_eq!(epoch_seconds(-1_500_000_000), "-1.500000000");
    }
}
