//! The engine's per-packet notes and flow verdicts as a Lua data file the Wireshark
//! plugin loads instead of analysing in Lua ("annotated mode", docs/wireshark.md): the
//! plugin then only looks values up and adds them to the tree, which is what keeps tshark
//! with the plugin near tshark without it.
//!
//! The file is Lua source returning one table. Packet records sit in functions of
//! [`CHUNK`] frames each, called by the plugin when a frame of that range is first shown
//! (Lua parses the whole file at once, in C, but builds tables only on demand; small
//! functions also keep every Lua version's per-function constant limit far away). Each
//! record is exactly the plugin's own: `{stream, dir, data_dir, rwnd, rwnd_basis or -1,
//! in_flight, unacked, sacked, cwnd, cwnd_conf, limit, vantage, events or false, rtt_ns,
//! frame length}` with the events table named as the Lua analysis names them; the frame
//! length lets the plugin notice annotations of another capture. Flow verdicts follow, in
//! chunks of [`CHUNK`] flows, shaped as the Lua `Flow:verdict()` returns them.

use std::io::{self, Write};

use crate::analyse::verdict::FlowVerdict;
use crate::analyse::{NotesSink, PacketNotes};
use crate::decode::TcpSegment;
use crate::flow::{FlowSummary, Placement};
use crate::ingest::Frame;

/// Frames per packet chunk, and flows per verdict chunk.
pub const CHUNK: u64 = 2048;
/// Bumped when the layout changes; the plugin refuses other formats.
pub const FORMAT: u32 = 1;

/// Writes the annotations of one capture as its packets go by; [`finish`](Self::finish)
/// adds the verdicts.
pub struct Annotations<W: Write> {
    out: W,
    /// Chunk being written (frames `chunk*CHUNK+1 ..= (chunk+1)*CHUNK`), if one is open.
    chunk: Option<u64>,
    /// Retransmission frame → (frame of the ACK that proved it spurious, evidence).
    proven: Vec<(u64, u64, u8)>,
    /// The first annotated frame and its time in seconds as Wireshark's `pinfo.abs_ts`
    /// computes it: the plugin checks it to refuse another capture's annotations.
    first: Option<(u64, f64)>,
    error: Option<io::Error>,
}

impl<W: Write> Annotations<W> {
    /// `capture` is recorded in the file (the plugin warns when the open file differs).
    pub fn new(mut out: W, capture: &str, capture_bytes: u64) -> Annotations<W> {
        let head = format!(
            "-- tcpdiag annotations for the Wireshark plugin (docs/wireshark.md); generated, do not edit\n\
             local A = {{ format = {FORMAT}, capture = {}, capture_bytes = {capture_bytes}, chunk = {CHUNK}, packets = {{}}, flows = {{}} }}\n",
            lua_string(capture)
        );
        let error = out.write_all(head.as_bytes()).err();
        Annotations { out, chunk: None, proven: Vec::new(), first: None, error }
    }

    fn write(&mut self, s: &str) {
        if self.error.is_none() {
            self.error = self.out.write_all(s.as_bytes()).err();
        }
    }

    /// Closes the packet chunk and writes the proven table and the flow verdicts.
    pub fn finish(mut self, flows: &[FlowSummary], verdicts: &[FlowVerdict]) -> io::Result<W> {
        if self.chunk.is_some() {
            self.write("} end\n");
        }
        self.proven.sort_by_key(|p| p.0);
        let mut s = match self.first {
            Some((frame, secs)) => format!("A.first = {{ frame = {frame}, abs_ts = {} }}\n", lua_number(secs)),
            None => String::new(),
        };
        s += "A.proven = {\n";
        // The last proof of a frame wins, as in the plugin's own map.
        for (i, &(orig, by, ev)) in self.proven.iter().enumerate() {
            if self.proven.get(i + 1).is_none_or(|n| n.0 != orig) {
                s += &format!("[{orig}]={{{by},{ev}}},\n");
            }
        }
        s += "}\n";
        self.write(&s);
        for (c, pair) in flows.chunks(CHUNK as usize).zip(verdicts.chunks(CHUNK as usize)).enumerate() {
            let mut s = format!("A.flows[{c}] = function() return {{\n");
            for (f, v) in pair.0.iter().zip(pair.1) {
                s += &format!("[{}]={},\n", f.stream, verdict(f, v));
            }
            s += "} end\n";
            self.write(&s);
        }
        self.write("return A\n");
        match self.error {
            Some(e) => Err(e),
            None => {
                self.out.flush()?;
                Ok(self.out)
            }
        }
    }
}

impl<W: Write> NotesSink for Annotations<W> {
    fn packet(&mut self, frame: &Frame<'_>, seg: &TcpSegment, place: Placement, n: &PacketNotes) {
        let chunk = (frame.number.max(1) - 1) / CHUNK;
        if self.chunk != Some(chunk) {
            let close = if self.chunk.is_some() { "} end\n" } else { "" };
            self.write(&format!("{close}A.packets[{chunk}] = function() return {{\n"));
            self.chunk = Some(chunk);
        }
        if self.first.is_none() {
            // nstime_to_sec(): seconds plus nanoseconds / 1e9, in doubles.
            let secs = frame.ts_ns.div_euclid(1_000_000_000) as f64 + frame.ts_ns.rem_euclid(1_000_000_000) as f64 / 1e9;
            self.first = Some((frame.number, secs));
        }
        if n.spurious_of != 0 {
            self.proven.push((n.spurious_of, frame.number, n.spurious_by as u8));
        }
        let basis = n.rwnd_basis.map_or(-1, |b| b as i64);
        let rtt = n.rtt_ns.map_or("nil".to_string(), |r| r.to_string());
        let line = format!(
            "[{}]={{{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}}},\n",
            frame.number,
            place.flow,
            place.dir.index(),
            n.data_dir,
            n.rwnd,
            basis,
            n.in_flight,
            n.unacked,
            n.sacked,
            n.cwnd,
            n.cwnd_conf as u8,
            n.limit as u8,
            n.vantage as u8,
            events(seg, n).unwrap_or_else(|| "false".into()),
            rtt,
            frame.origlen
        );
        self.write(&line);
    }

    fn stopped(&self) -> bool {
        self.error.is_some()
    }
}

/// The plugin's events table for a packet that has any (`analyse()` in the plugin keeps
/// one exactly then), with the field names `show_events` reads.
fn events(seg: &TcpSegment, n: &PacketNotes) -> Option<String> {
    let any = n.retrans as u8 != 0
        || n.dsack
        || n.spurious_of != 0
        || n.reorder.is_some()
        || n.lost_before != 0
        || n.dup_ack != 0
        || n.zero_window
        || n.zero_window_probe
        || n.window_full
        || n.keepalive
        || n.duplicate
        || n.inferred_shift.is_some();
    if !any {
        return None;
    }
    let mut s = format!(
        "{{retrans={},retrans_of={},dsack={},spurious_of={},spurious_by={},lost_before={},dup_ack={},dup_ack_of={},\
         zero_window={},zero_window_probe={},window_full={},keepalive={},duplicate={},unacked={},rwnd={},rack_ns={}",
        n.retrans as u8,
        n.retrans_of,
        n.dsack,
        n.spurious_of,
        n.spurious_by as u8,
        n.lost_before,
        n.dup_ack,
        n.dup_ack_of,
        n.zero_window,
        n.zero_window_probe,
        n.window_full,
        n.keepalive,
        n.duplicate,
        n.unacked,
        n.rwnd,
        n.rack_ns
    );
    if let (true, Some(&(l, r))) = (n.dsack, seg.options.sack_blocks().first()) {
        s += &format!(",dsack_range={{{l},{r}}}");
    }
    if let Some(r) = n.reorder {
        s += &format!(",reorder={{packets={},bytes={},late_ns={}}}", r.packets, r.bytes, r.late_ns);
    }
    if let Some((shift, flight)) = n.inferred_shift {
        s += &format!(",inferred_shift={shift},inferred_flight={flight}");
    }
    s.push('}');
    Some(s)
}

/// A flow's verdict as the plugin's `Flow:verdict()` shapes it (what `show_verdict` and
/// the verdicts window read), plus the flow's packet count.
fn verdict(f: &FlowSummary, v: &FlowVerdict) -> String {
    let states: Vec<String> = v.state_ns.iter().map(|x| x.to_string()).collect();
    let mut findings = Vec::new();
    for x in &v.findings {
        let frames: Vec<String> = x.frames.iter().map(|f| f.to_string()).collect();
        let values: Vec<String> = x
            .values
            .iter()
            .map(|(k, val)| {
                let inner = match val.number() {
                    Some(n) => format!("num={}", lua_number(n)),
                    None => format!("text={}", lua_string(&val.render())),
                };
                format!("{k}={{{inner}}}")
            })
            .collect();
        findings.push(format!(
            "{{id={},share={},frames={{{}}},values={{{}}}}}",
            lua_string(x.id.name()),
            lua_number(x.share),
            frames.join(","),
            values.join(",")
        ));
    }
    format!(
        "{{packets={},first_frame={},data_dir={},vantage={},vantage_name={},busy_ns={},state_ns={{[0]={}}},findings={{{}}}}}",
        f.sides[0].packets + f.sides[1].packets,
        f.first_frame,
        v.data_dir,
        v.vantage as u8,
        lua_string(v.vantage.name()),
        v.busy_ns,
        states.join(","),
        findings.join(",")
    )
}

/// A Lua number literal that reads back as the same double (Rust's shortest round-trip
/// form; non-finite values as Lua expressions).
fn lua_number(x: f64) -> String {
    if x.is_nan() {
        "(0/0)".into()
    } else if x.is_infinite() {
        if x > 0.0 { "math.huge".into() } else { "(-math.huge)".into() }
    } else {
        format!("{x:?}")
    }
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
        assert_eq!(lua_number(3.0), "3.0");
        assert_eq!(lua_number(0.25), "0.25");
        assert_eq!(lua_number(f64::INFINITY), "math.huge");
        assert_eq!(lua_number(1e300), "1e300");
        assert_eq!(lua_number(1795307685.5559266), "1795307685.5559266");
    }
}
