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

use std::io::{self, Write};

use super::csv::{basis_name, conf_name, evidence_name};
use super::templates::{fill, templates};
use crate::analyse::notes::{CwndConfidence, LimitState};
use crate::analyse::window::RwndBasis;
use crate::analyse::verdict::{Finding, FlowVerdict, Value};
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::TcpSegment;
use crate::flow::{FlowSummary, Placement};
use crate::ingest::Frame;

/// Bumped when the layout changes; the plugin refuses other formats.
pub const FORMAT: u32 = 2;
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
    /// Retransmission frame → (frame of the ACK that proved it spurious, evidence).
    proven: Vec<(u64, u64, u8)>,
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
                "rwnd_basis" => [RwndBasis::Known, RwndBasis::NotNegotiated, RwndBasis::Inferred].map(basis_name).to_vec(),
                "cwnd_conf" => [CwndConfidence::None, CwndConfidence::Bound, CwndConfidence::Estimate].map(conf_name).to_vec(),
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
        self.proven.sort_by_key(|p| p.0);
        // The last proof of a frame wins.
        for (i, &(orig, by, ev)) in self.proven.iter().enumerate() {
            if self.proven.get(i + 1).is_none_or(|n| n.0 != orig) {
                let text = event_text("spurious_retransmission", &[
                    ("orig_frame", Value::Text(orig.to_string())),
                    ("evidence", Value::Text(evidence_text(ev).into())),
                    ("evidence_frame", Value::Text(by.to_string())),
                ]);
                s += &format!("[{orig}] = {{ 1, \"spurious_proven_in\", {by}, \"spurious_retransmission\", {} }},\n",
                              lua_string(&text));
            }
        }
        s += "},\nflows = {\n";
        for (f, v) in flows.iter().zip(verdicts) {
            s += &format!("[{}] = {},\n", f.stream, flow_verdict(f, v));
        }
        s + "},\n}"
    }
}

impl<W: Write> NotesSink for Annotations<W> {
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, n: &PacketNotes) {
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
        if n.spurious_of != 0 {
            self.proven.push((n.spurious_of, frame.number, n.spurious_by as u8));
        }
        let events = match packet_events(seg, n, frame.number) {
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

/// The finished message and remedy of a flow finding (the same text the CLI, JSON and
/// HTML show).
pub fn finding_text(f: &Finding) -> (String, String) {
    let (message, remedy) = templates().get(f.id).map_or(("", ""), |t| (t.0.as_str(), t.1.as_str()));
    (fill(message, &f.values), fill(remedy, &f.values))
}

/// The finished text of a packet event's expert info.
fn event_text(id: &str, values: &[(&str, Value)]) -> String {
    fill(templates().get(id).map_or("", |t| t.0.as_str()), values)
}

fn evidence_text(by: u8) -> &'static str {
    match by {
        1 => "DSACK",
        2 => "timestamp echo (Eifel)",
        _ => "?",
    }
}

/// A packet's events as an entry of the header's `events` list: the number of field pairs,
/// the pairs (field name, value), then (expert id, finished text) pairs.
fn packet_events(seg: &TcpSegment, n: &PacketNotes, number: u64) -> Option<String> {
    let mut fields: Vec<(&str, String)> = Vec::new();
    let mut experts: Vec<(&str, String)> = Vec::new();
    let frame = |x: u64| Value::Text(x.to_string());
    let int = |x: u64| Value::Int(x as i64);
    if n.retrans as u8 != 0 {
        let kind = n.retrans.name();
        fields.push(("retrans", lua_string(kind)));
        let mut v = vec![("kind", Value::Text(kind.into()))];
        if n.retrans_of != 0 {
            fields.push(("retrans_of", n.retrans_of.to_string()));
            v.push(("orig_frame", frame(n.retrans_of)));
        }
        experts.push(("retransmission", event_text("retransmission", &v)));
    }
    if n.dsack {
        fields.push(("dsack", "true".into()));
        if let Some(&(l, r)) = seg.options.sack_blocks().first() {
            fields.push(("dsack.left", l.to_string()));
            fields.push(("dsack.right", r.to_string()));
            let v = [("left", Value::Text(l.to_string())), ("right", Value::Text(r.to_string()))];
            experts.push(("dsack", event_text("dsack", &v)));
        }
    }
    if n.spurious_of != 0 {
        fields.push(("spurious_of", n.spurious_of.to_string()));
        fields.push(("spurious_by", lua_string(evidence_name(n.spurious_by))));
        let v = [
            ("orig_frame", frame(n.spurious_of)),
            ("evidence", Value::Text(evidence_text(n.spurious_by as u8).into())),
            ("evidence_frame", frame(number)),
        ];
        experts.push(("spurious_retransmission", event_text("spurious_retransmission", &v)));
    }
    if let Some(r) = n.reorder {
        fields.push(("reorder_packets", r.packets.to_string()));
        fields.push(("reorder_bytes", r.bytes.to_string()));
        fields.push(("reorder_ns", r.late_ns.to_string()));
        let v = [
            ("extent_packets", int(r.packets.into())),
            ("extent_bytes", int(r.bytes.into())),
            ("extent_ms", Value::Num(r.late_ns as f64 / 1e6)),
            ("rack_ms", Value::Num(n.rack_ns as f64 / 1e6)),
        ];
        experts.push(("reordering", event_text("reordering", &v)));
    }
    if n.lost_before != 0 {
        fields.push(("lost_before", n.lost_before.to_string()));
        experts.push(("lost_segment", event_text("lost_segment", &[("gap", int(n.lost_before.into()))])));
    }
    if n.dup_ack != 0 {
        fields.push(("dup_ack", n.dup_ack.to_string()));
        if n.dup_ack_of != 0 {
            fields.push(("dup_ack_of", n.dup_ack_of.to_string()));
        }
        let v = [("count", int(n.dup_ack.into())), ("orig_frame", frame(n.dup_ack_of))];
        experts.push(("duplicate_ack", event_text("duplicate_ack", &v)));
    }
    for (on, id) in [(n.zero_window, "zero_window"), (n.zero_window_probe, "zero_window_probe")] {
        if on {
            fields.push((id, "true".into()));
            experts.push((id, event_text(id, &[])));
        }
    }
    if n.window_full {
        fields.push(("window_full", "true".into()));
        let v = [("in_flight", int(n.unacked)), ("rwnd", int(n.rwnd))];
        experts.push(("window_full", event_text("window_full", &v)));
    }
    if n.keepalive {
        fields.push(("keepalive", "true".into()));
    }
    if n.duplicate {
        fields.push(("duplicate", "true".into()));
    }
    if let Some((shift, flight)) = n.inferred_shift {
        let v = [("shift", int(shift.into())), ("in_flight", int(flight))];
        experts.push(("window_scale_inferred", event_text("window_scale_inferred", &v)));
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

/// A flow's verdict as the plugin shows it: the primary finding's id, the capture point,
/// the data direction, the frame that carries the details, the time shares, and each
/// finding with its finished message, remedy and evidence frames.
fn flow_verdict(f: &FlowSummary, v: &FlowVerdict) -> String {
    let findings: Vec<String> = v
        .findings
        .iter()
        .map(|x| {
            let (message, remedy) = finding_text(x);
            let frames: Vec<String> = x.frames.iter().filter(|&&f| f != 0).map(|f| f.to_string()).collect();
            format!("{{ id = {}, message = {}, remedy = {}, frames = {{ {} }} }}", lua_string(x.id),
                    lua_string(&message), lua_string(&remedy), frames.join(", "))
        })
        .collect();
    format!(
        "{{ verdict = {}, vantage = {}, data_dir = {}, first_frame = {}, shares = {},\n  findings = {{\n  {} }} }}",
        lua_string(v.findings.first().map_or("", |x| x.id)),
        lua_string(v.vantage.name()),
        v.data_dir,
        f.first_frame,
        lua_string(&shares_text(v)),
        findings.join(",\n  ")
    )
}

/// Time per limit state while busy ("rwnd 75%, cwnd 20%"), then the idle time.
fn shares_text(v: &FlowVerdict) -> String {
    let busy = v.busy_ns.max(1) as f64;
    let mut parts: Vec<String> = LimitState::ALL[1..7]
        .iter()
        .filter_map(|&st| {
            let share = v.state_ns[st as usize] as f64 / busy;
            (share >= 0.005).then(|| format!("{} {:.0}%", st.name(), 100.0 * share))
        })
        .collect();
    let idle = v.state_ns[LimitState::Idle as usize];
    if idle > 0 {
        parts.push(format!("(idle {:.3} s)", idle as f64 / 1e9));
    }
    parts.join(", ")
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

    #[test]
    fn finding_text_fills_the_catalogue_message_and_remedy() {
        let f = Finding {
            id: "loss_limited",
            share: 0.5,
            frames: vec![3],
            values: vec![("loss_pct", Value::Num(2.25)), ("recoveries", Value::Int(1200)), ("mathis", Value::Text("8 Mbit/s".into()))],
        };
        let (m, r) = finding_text(&f);
        assert_eq!(m, "Loss limited: 2.2% of segments retransmitted in 1,200 recoveries; Mathis bound 8 Mbit/s at ? ms RTT");
        assert!(r.contains("loss of 2.2% caps TCP"), "{r}");
    }
}
