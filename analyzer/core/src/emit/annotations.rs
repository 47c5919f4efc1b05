//! The engine's per-packet notes and flow verdicts for the Wireshark plugin
//! (docs/wireshark.md, "Annotations"): the plugin only places what this file says.
//!
//! Layout, made for Wireshark's Lua (5.2 – 5.4), where parsing Lua source costs about
//! 0.3 µs a number and a table per frame costs memory:
//!
//! 1. One line naming the format.
//! 2. One fixed-size binary record per frame, from frame 1 to the last TCP frame
//!    (big-endian; the plugin reads them with `Struct.unpack`). Each field is coded as
//!    `0` = absent, `n > 0` = the number n − 1 (or the n-th of its names), `n < 0` = n.
//! 3. The header, a Lua table constructor (`return { ... }`, run with no library in
//!    reach): the capture's name and first frame, the record's fields (name, `Struct`
//!    code, names of coded values), the packet events (fields to add and expert infos
//!    with their finished text), the facts known only later (a retransmission proven
//!    spurious) and every flow's verdict with its finished texts.
//! 4. A last line giving the header's byte offset.
//!
//! Records stream out with the packets; events, late facts and verdicts wait for the end.
//! Every text is the engine's: findings render their own message and remedy
//! (analyse/finding.rs), packet events are those of the events table
//! ([`packet_events`]), the verdict's time, transfer and ceiling lines come from
//! analyse/verdict.rs and analyse/ceiling.rs. Nothing here fills a template.

use std::io::{self, Write};

use super::events::packet_events;
use crate::analyse::catalogue::FindingId;
use crate::analyse::notes::{CwndConfidence, LimitState};
use crate::analyse::verdict::FlowVerdict;
use crate::analyse::window::RwndBasis;
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::TcpSegment;
use crate::flow::{FlowSummary, Placement};
use crate::ingest::Frame;

/// Bumped when the layout changes; the plugin refuses other formats.
pub const FORMAT: u32 = 3;
/// The first line of every annotations file.
pub const MAGIC: &str = "-- tcpdiag annotations for the Wireshark plugin (docs/wireshark.md); generated, do not edit\n";

/// The record's fields, in order: name (a `tcpdiag.` field), `Struct` code, byte width.
const FIELDS: [(&str, &str, usize); 14] = [
    ("flow", "I4", 4),
    ("data_dir", "B", 1),
    ("rwnd", "I4", 4),
    ("rwnd_basis", "B", 1),
    ("in_flight", "I4", 4),
    ("unacked", "I4", 4),
    ("sacked", "I4", 4),
    ("cwnd", "I4", 4),
    ("cwnd_conf", "B", 1),
    ("limit", "B", 1),
    ("vantage", "B", 1),
    ("rtt_ns", "i6", 6),
    ("events", "I4", 4), // n: the n-th entry of the header's `events`
    ("frame_len", "I4", 4), // not shown: the plugin checks it against the capture
];
const RECORD: usize = 43;
const VANTAGES: [&str; 3] = ["sender", "receiver", "middle"];

/// Writes the annotations of one capture as its packets go by; [`finish`](Self::finish)
/// adds the header.
pub struct Annotations<W: Write> {
    out: W,
    capture: String,
    capture_bytes: u64,
    /// Frames written so far (records are positional from frame 1).
    frames: u64,
    /// The first annotated frame, its time as Wireshark's `pinfo.abs_ts`, its length.
    first: Option<(u64, f64, u32)>,
    /// Entries of the header's `events` list, as Lua text.
    events: String,
    nevents: u64,
    /// Retransmission frame → (frame of the ACK that proved it spurious, the expert
    /// info's text).
    proven: Vec<(u64, u64, String)>,
    error: Option<io::Error>,
}

impl<W: Write> Annotations<W> {
    /// `capture` is recorded in the file (the plugin names it in its messages).
    pub fn new(mut out: W, capture: &str, capture_bytes: u64) -> Annotations<W> {
        let error = out.write_all(MAGIC.as_bytes()).err();
        Annotations {
            out,
            capture: capture.to_string(),
            capture_bytes,
            frames: 0,
            first: None,
            events: String::new(),
            nevents: 0,
            proven: Vec::new(),
            error,
        }
    }

    fn write(&mut self, b: &[u8]) {
        if self.error.is_none() {
            self.error = self.out.write_all(b).err();
        }
    }

    /// Writes the header and the offset line.
    pub fn finish(mut self, flows: &[FlowSummary], verdicts: &[FlowVerdict]) -> io::Result<W> {
        self.write(b"\n");
        let at = MAGIC.len() as u64 + self.frames * RECORD as u64 + 1;
        let header = self.header(flows, verdicts);
        self.write(header.as_bytes());
        self.write(format!("\n-- header at byte {at:016}\n").as_bytes());
        match self.error {
            Some(e) => Err(e),
            None => {
                self.out.flush()?;
                Ok(self.out)
            }
        }
    }

    fn header(&mut self, flows: &[FlowSummary], verdicts: &[FlowVerdict]) -> String {
        let mut s = format!(
            "return {{\nformat = {FORMAT},\ncapture = {}, capture_bytes = {},\nrecords = {{ at = {}, size = {RECORD}, frames = {} }},\n",
            lua_string(&self.capture),
            self.capture_bytes,
            MAGIC.len(),
            self.frames
        );
        if let Some((frame, abs_ts, len)) = self.first {
            s += &format!("first = {{ frame = {frame}, abs_ts = {}, len = {len} }},\n", lua_number(abs_ts));
        }
        s += "fields = {\n";
        for (name, code, _) in FIELDS {
            let names: Vec<&str> = match name {
                "rwnd_basis" => RwndBasis::ALL.map(RwndBasis::name).to_vec(),
                "cwnd_conf" => CwndConfidence::ALL.map(CwndConfidence::name).to_vec(),
                "limit" => LimitState::ALL.iter().map(|l| l.name()).collect(),
                "vantage" => VANTAGES.to_vec(),
                _ => vec![],
            };
            let names: Vec<String> = names.iter().map(|n| lua_string(n)).collect();
            s += &match (name, names.is_empty()) {
                ("events", _) => format!("{{ \"events\", {}, \"events\" }},\n", lua_string(code)),
                (_, true) => format!("{{ {}, {} }},\n", lua_string(name), lua_string(code)),
                (_, false) => format!("{{ {}, {}, {{ {} }} }},\n", lua_string(name), lua_string(code), names.join(", ")),
            };
        }
        s += "},\nevents = {\n";
        s += &std::mem::take(&mut self.events);
        s += "},\nlate = {\n";
        // Every proof of a retransmission, in the order they came (the sort is stable).
        self.proven.sort_by_key(|p| p.0);
        let id = FindingId::SpuriousRetransmission.name();
        for proofs in self.proven.chunk_by(|a, b| a.0 == b.0) {
            s += &format!("[{}] = {{ {}", proofs[0].0, proofs.len());
            for (_, by, _) in proofs {
                s += &format!(", \"spurious_proven_in\", {by}");
            }
            for (_, _, text) in proofs {
                s += &format!(", \"{id}\", {}", lua_string(text));
            }
            s += " },\n";
        }
        s += "},\nflows = {\n";
        for (f, v) in flows.iter().zip(verdicts) {
            s += &format!("[{}] = {},\n", f.stream, flow_verdict(f, v));
        }
        s + "},\n}"
    }
}

impl<W: Write> NotesSink for Annotations<W> {
    fn packet(&mut self, frame: &Frame<'_>, _: &TcpSegment, place: Placement, n: &PacketNotes) {
        if self.error.is_some() || frame.number <= self.frames {
            return;
        }
        // Frames without a record (no TCP, or not analysed) read as all absent.
        let gap = (frame.number - 1 - self.frames) as usize;
        if gap > 0 {
            self.write(&vec![0u8; gap * RECORD]);
        }
        self.frames = frame.number;
        if self.first.is_none() {
            // nstime_to_sec(): seconds plus nanoseconds / 1e9, in doubles.
            let secs = frame.ts_ns.div_euclid(1_000_000_000) as f64 + frame.ts_ns.rem_euclid(1_000_000_000) as f64 / 1e9;
            self.first = Some((frame.number, secs, frame.origlen));
        }
        let events = match self.packet_entry(frame, n) {
            Some(text) => {
                self.events += &text;
                self.nevents += 1;
                self.nevents
            }
            None => 0,
        };
        let values: [i64; 14] = [
            i64::from(place.flow) + 1,
            i64::from(n.data_dir) + 1,
            count(n.rwnd),
            n.rwnd_basis.map_or(0, |b| b as i64 + 1),
            count(n.in_flight),
            count(n.unacked),
            if n.sacked == 0 { 0 } else { count(n.sacked) },
            count(n.cwnd),
            n.cwnd_conf as i64 + 1,
            n.limit as i64 + 1,
            n.vantage as i64, // 0 unknown: absent
            n.rtt_ns.map_or(0, |r| if r >= 0 { r.saturating_add(1) } else { r }),
            events as i64,
            i64::from(frame.origlen) + 1,
        ];
        let mut rec = [0u8; RECORD];
        let mut at = 0;
        for (&(_, code, width), v) in FIELDS.iter().zip(values) {
            // Saturated at the width: no TCP byte count, stream number or RTT comes near it.
            let bits = 8 * width as u32;
            let v = if code.starts_with('i') {
                v.clamp(-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            } else {
                v.clamp(0, ((1u64 << bits) - 1).min(i64::MAX as u64) as i64)
            };
            rec[at..at + width].copy_from_slice(&v.to_be_bytes()[8 - width..]);
            at += width;
        }
        self.write(&rec);
    }

    fn stopped(&self) -> bool {
        self.error.is_some()
    }
}

/// A byte count as stored: n + 1.
fn count(n: u64) -> i64 {
    i64::try_from(n).map_or(i64::MAX, |v| v.saturating_add(1))
}

impl<W: Write> Annotations<W> {
    /// A packet's entry of the header's `events` list: the number of field pairs, the
    /// pairs (field name, value as Lua), then (expert id, finished text) pairs. An event
    /// that belongs to an earlier frame (a retransmission this ACK proves spurious) goes
    /// to the `late` list.
    fn packet_entry(&mut self, frame: &Frame<'_>, n: &PacketNotes) -> Option<String> {
        let number = frame.number;
        let mut experts: Vec<(&str, String)> = Vec::new();
        packet_events(number, frame.ts_ns, n, |on, _, id, related, text| {
            if on == number {
                experts.push((id.name(), text));
            } else {
                self.proven.push((on, related, text));
            }
        });
        let mut fields: Vec<(&str, String)> = Vec::new();
        if n.retrans as u8 != 0 {
            fields.push(("retrans", lua_string(n.retrans.name())));
            if n.retrans_of != 0 {
                fields.push(("retrans_of", n.retrans_of.to_string()));
            }
        }
        if n.dsack {
            fields.push(("dsack", "true".into()));
            fields.push(("dsack.left", n.dsack_edges.0.to_string()));
            fields.push(("dsack.right", n.dsack_edges.1.to_string()));
        }
        if n.spurious_of != 0 {
            fields.push(("spurious_of", n.spurious_of.to_string()));
            fields.push(("spurious_by", lua_string(n.spurious_by.name())));
        }
        if let Some(r) = n.reorder {
            fields.push(("reorder_packets", r.packets.to_string()));
            fields.push(("reorder_bytes", r.bytes.to_string()));
            fields.push(("reorder_ns", r.late_ns.to_string()));
        }
        if n.lost_before != 0 {
            fields.push(("lost_before", n.lost_before.to_string()));
        }
        if n.dup_ack != 0 {
            fields.push(("dup_ack", n.dup_ack.to_string()));
            if n.dup_ack_of != 0 {
                fields.push(("dup_ack_of", n.dup_ack_of.to_string()));
            }
        }
        for (on, name) in [
            (n.zero_window, "zero_window"),
            (n.zero_window_probe, "zero_window_probe"),
            (n.window_full, "window_full"),
            (n.keepalive, "keepalive"),
            (n.duplicate, "duplicate"),
        ] {
            if on {
                fields.push((name, "true".into()));
            }
        }
        if fields.is_empty() && experts.is_empty() {
            return None;
        }
        let mut s = format!("{{ {}", fields.len());
        for (name, value) in &fields {
            s += &format!(", \"{name}\", {value}");
        }
        for (id, text) in &experts {
            s += &format!(", \"{id}\", {}", lua_string(text));
        }
        Some(s + " },\n")
    }
}

/// A flow's verdict as the plugin shows it: the primary finding's id, the capture point,
/// the data direction, the frame that carries the details, the engine's time, transfer and
/// ceiling lines, and each finding with its message, remedy and evidence frames.
fn flow_verdict(f: &FlowSummary, v: &FlowVerdict) -> String {
    let findings: Vec<String> = v
        .findings
        .iter()
        .map(|x| {
            let frames: Vec<String> = x.frames.iter().filter(|&&f| f != 0).map(|f| f.to_string()).collect();
            format!("{{ id = {}, message = {}, remedy = {}, frames = {{ {} }} }}", lua_string(x.id.name()),
                    lua_string(&x.message()), lua_string(&x.remedy()), frames.join(", "))
        })
        .collect();
    // No ceiling (a verdict that states none): no lines, as in the CLI and JSON.
    let ceiling: Vec<String> = v.ceiling.iter().flat_map(|c| c.lines()).map(|l| lua_string(&l)).collect();
    format!(
        "{{ verdict = {}, vantage = {}, data_dir = {}, first_frame = {},\n  time = {}, transfer = {}, control = {}, ceiling = {{ {} }},\n  findings = {{\n  {} }} }}",
        lua_string(v.findings.first().map_or("", |x| x.id.name())),
        lua_string(v.vantage.name()),
        v.data_dir,
        f.first_frame,
        lua_string(&v.time_line()),
        lua_string(&v.transfer_line()),
        lua_string(&v.cc.line()),
        ceiling.join(", "),
        findings.join(",\n  ")
    )
}

/// A Lua number literal that reads back as the same double (finite values only).
fn lua_number(x: f64) -> String {
    if x.is_finite() { format!("{x:?}") } else { "0".into() }
}

/// A Lua string literal: printable ASCII as is, everything else as decimal escapes
/// (valid in every Lua version).
fn lua_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out += &format!("\\{b:03}"),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_are_lua_literals() {
        assert_eq!(lua_string("a\"b\\c\n€"), "\"a\\\"b\\\\c\\010\\226\\130\\172\"");
        assert_eq!(lua_number(0.25), "0.25");
        assert_eq!(lua_number(1795307685.5559266), "1795307685.5559266");
    }

    #[test]
    fn the_record_is_as_wide_as_its_fields() {
        assert_eq!(FIELDS.iter().map(|f| f.2).sum::<usize>(), RECORD);
        for (_, code, width) in FIELDS {
            let n: usize = code[1..].parse().unwrap_or(1);
            assert_eq!(n, width, "{code}");
        }
    }
}
