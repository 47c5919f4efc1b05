//! Streaming CSV for the packets table: rows are written as segments arrive, so memory
//! stays flat however long the capture is.

use std::io::{self, Write};

use super::packets::COLUMNS;
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
}

impl<W: Write> PacketCsv<W> {
    pub fn new(mut out: W) -> PacketCsv<W> {
        let error = writeln!(out, "{}", COLUMNS.join(",")).err();
        PacketCsv { out, error }
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
        if self.error.is_some() {
            return;
        }
        let r = writeln!(
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
        );
        if let Err(e) = r {
            self.error = Some(e);
        }
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
