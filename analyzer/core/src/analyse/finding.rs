//! A finding as every surface shows it: its catalogue entry, the numbers behind it (typed,
//! so JSON carries numbers and the text carries units) and its message and remedy rendered
//! once, here, from the catalogue's templates.

use std::borrow::Cow;

use super::catalogue::{Entry, FindingId};
use super::units;

/// One number or word of a finding's evidence. The variant is its unit: it decides how the
/// value reads in a sentence and is named in JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A count: "1,234".
    Int(i64),
    /// A frame number, as Wireshark's filter bar takes it: "1234".
    Frame(u64),
    /// A relative sequence number, as Wireshark shows it: "1234".
    Seq(u64),
    /// Bytes, exact: "80,480 B".
    Bytes(u64),
    /// Milliseconds: "40.1 ms".
    Ms(f64),
    /// A fraction 0..1: "95%".
    Share(f64),
    /// bit/s: "15.7 Mbit/s".
    Rate(f64),
    /// A plain number: "1.5".
    Num(f64),
    Text(Cow<'static, str>),
}

impl Value {
    pub fn text(s: impl Into<Cow<'static, str>>) -> Value {
        Value::Text(s.into())
    }

    /// The unit's name in JSON and in the findings table.
    pub fn unit(&self) -> &'static str {
        match self {
            Value::Int(_) => "count",
            Value::Frame(_) => "frame",
            Value::Seq(_) => "seq",
            Value::Bytes(_) => "bytes",
            Value::Ms(_) => "ms",
            Value::Share(_) => "share",
            Value::Rate(_) => "bit/s",
            Value::Num(_) => "number",
            Value::Text(_) => "text",
        }
    }

    /// The number, for JSON and tables (None for text).
    pub fn number(&self) -> Option<f64> {
        Some(match *self {
            Value::Int(i) => i as f64,
            Value::Frame(f) | Value::Seq(f) | Value::Bytes(f) => f as f64,
            Value::Ms(x) | Value::Share(x) | Value::Rate(x) | Value::Num(x) => x,
            Value::Text(_) => return None,
        })
    }

    /// How it reads in a sentence.
    pub fn render(&self) -> String {
        match self {
            Value::Int(i) => units::grouped(*i),
            Value::Frame(f) | Value::Seq(f) => f.to_string(),
            Value::Bytes(b) => units::bytes(*b),
            Value::Ms(x) => units::ms(*x),
            Value::Share(x) => units::percent(*x),
            Value::Rate(x) => units::rate(*x),
            Value::Num(x) => units::number(*x),
            Value::Text(t) => t.to_string(),
        }
    }
}

/// Fills `{name}` placeholders from `values`. A clause in `[...]` is said only when every
/// placeholder in it has a value: a figure the capture could not give drops its clause
/// rather than reading "?". An unknown name outside a clause reads "?".
pub fn fill(template: &str, values: &[(&'static str, Value)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('[') {
        out.push_str(&fill_plain(&rest[..open], values).0);
        let Some(close) = rest[open..].find(']') else {
            rest = &rest[open..];
            break;
        };
        let (clause, complete) = fill_plain(&rest[open + 1..open + close], values);
        if complete {
            out.push_str(&clause);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(&fill_plain(rest, values).0);
    out
}

/// `template` filled, and whether every placeholder had a value.
fn fill_plain(template: &str, values: &[(&'static str, Value)]) -> (String, bool) {
    let mut out = String::with_capacity(template.len() + 32);
    let mut complete = true;
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return (out, complete);
        };
        let name = &rest[open + 1..open + close];
        match values.iter().find(|(k, _)| *k == name) {
            Some((_, v)) => out.push_str(&v.render()),
            None => {
                out.push('?');
                complete = false;
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    (out, complete)
}

/// A finding: its catalogue entry and the values its sentences are filled from. The
/// sentences are rendered when a surface asks ([`message`](Self::message),
/// [`remedy`](Self::remedy)): a capture of a million flows keeps numbers, not text.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub id: FindingId,
    /// Share of the busy time this finding explains (0..1), for ranking.
    pub share: f64,
    /// Frames that show it (open in Wireshark with `frame.number == N`); for a pair finding
    /// (`tcpdiag compare`), frames of the first capture (A).
    pub frames: Vec<u64>,
    /// Pair findings only: frames of the second capture (B) that show it.
    pub frames_b: Vec<u64>,
    pub values: Vec<(&'static str, Value)>,
}

impl Finding {
    pub fn new(id: FindingId, share: f64, frames: Vec<u64>, values: Vec<(&'static str, Value)>) -> Finding {
        Finding { id, share, frames, frames_b: Vec::new(), values }
    }

    /// A finding about one flow seen in two captures, with evidence frames in each.
    pub fn pair(id: FindingId, share: f64, frames_a: Vec<u64>, frames_b: Vec<u64>, values: Vec<(&'static str, Value)>) -> Finding {
        Finding { id, share, frames: frames_a, frames_b, values }
    }

    /// The catalogue message filled with the values.
    pub fn message(&self) -> String {
        fill(self.id.entry().message, &self.values)
    }

    /// The catalogue remedy filled with the values (empty for packet events).
    pub fn remedy(&self) -> String {
        fill(self.id.entry().remedy, &self.values)
    }

    pub fn entry(&self) -> &'static Entry {
        self.id.entry()
    }

    pub fn value(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_takes_units_from_the_values() {
        let v = [("rwnd", Value::Bytes(80_480)), ("rtt", Value::Ms(40.06)), ("ceiling", Value::Rate(16.07e6))];
        assert_eq!(fill("rwnd {rwnd} ÷ RTT {rtt} = {ceiling}", &v), "rwnd 80,480 B ÷ RTT 40.1 ms = 16.1 Mbit/s");
    }

    #[test]
    fn unknown_placeholder_reads_as_a_question_mark() {
        assert_eq!(fill("{a} and {b", &[("a", Value::Int(1))]), "1 and {b");
        assert_eq!(fill("x {nope} y", &[]), "x ? y");
    }

    #[test]
    fn a_clause_whose_figure_is_unknown_is_left_out() {
        let t = "Loss limited: {loss}[; Mathis estimate {mathis} at {rtt} RTT]";
        let known = [("loss", Value::Share(0.02)), ("mathis", Value::Rate(5e6)), ("rtt", Value::Ms(40.0))];
        assert_eq!(fill(t, &known), "Loss limited: 2.0%; Mathis estimate 5 Mbit/s at 40 ms RTT");
        assert_eq!(fill(t, &known[..2]), "Loss limited: 2.0%");
        assert_eq!(fill("a [b {x}] c [d]", &[]), "a  c d");
    }

    #[test]
    fn every_placeholder_and_clause_of_the_catalogue_is_closed() {
        for e in super::super::catalogue::ENTRIES.iter() {
            for t in [e.message, e.remedy] {
                assert_eq!(t.matches('{').count(), t.matches('}').count(), "{}", e.id);
                assert_eq!(t.matches('[').count(), t.matches(']').count(), "{}", e.id);
            }
        }
    }
}
