//! The catalogue's message and remedy templates (catalogue/findings.toml, read at build
//! time) filled with a finding's values exactly as Python's `tcpdiag.analysis.format_message`
//! fills them: integers with thousands separators, numbers with one decimal below 1000
//! (none above), text as is, unknown names as `?`. Interim: used by the Wireshark
//! annotations until the engine renders every message itself.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::analyse::verdict::Value;

const CATALOGUE: &str = include_str!("../../../../catalogue/findings.toml");

/// id → (message, remedy) of every catalogue entry (remedy "" for packet events).
pub fn templates() -> &'static HashMap<&'static str, (String, String)> {
    static T: OnceLock<HashMap<&'static str, (String, String)>> = OnceLock::new();
    T.get_or_init(|| parse(CATALOGUE))
}

/// The `id`, `message` and `remedy` keys of each `[[finding]]` table. The catalogue writes
/// them as one-line basic strings (gen_catalogue.py checks the file is valid TOML).
fn parse(toml: &'static str) -> HashMap<&'static str, (String, String)> {
    let mut out = HashMap::new();
    let mut cur: Option<(&'static str, String, String)> = None;
    for line in toml.lines().chain(std::iter::once("[[finding]]")) {
        let line = line.trim();
        if line == "[[finding]]" {
            if let Some((id, m, r)) = cur.take() {
                out.insert(id, (m, r));
            }
            cur = Some(("", String::new(), String::new()));
            continue;
        }
        let (Some(c), Some((key, rest))) = (cur.as_mut(), line.split_once(" = ")) else { continue };
        let Some(text) = rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else { continue };
        match key {
            "id" => c.0 = text,
            "message" => c.1 = unescape(text).trim().to_string(),
            "remedy" => c.2 = unescape(text).trim().to_string(),
            _ => {}
        }
    }
    out.remove("");
    out
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = it.by_ref().take(4).collect();
                out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// `template` with each `{name}` replaced by its value.
pub fn fill(template: &str, values: &[(&str, Value)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out += &rest[..open];
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match values.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => out += &show(v),
                    None => out.push('?'),
                }
                rest = &after[close + 1..];
            }
            None => {
                out += &rest[open..];
                rest = "";
            }
        }
    }
    out + rest
}

/// One value as Python's `format(v, ",")`, `format(v, ",.1f")` or `format(v, ",.0f")`.
fn show(v: &Value) -> String {
    match v {
        Value::Int(i) => commas(&i.to_string()),
        Value::Num(x) if x.is_nan() => "nan".into(),
        Value::Num(x) if x.is_infinite() => (if *x > 0.0 { "inf" } else { "-inf" }).into(),
        Value::Num(x) if x.abs() < 1000.0 => commas(&format!("{x:.1}")),
        Value::Num(x) => commas(&format!("{x:.0}")),
        Value::Text(t) => t.clone(),
    }
}

/// Thousands separators in the integer part of a decimal number.
fn commas(s: &str) -> String {
    let (sign, body) = s.strip_prefix('-').map_or(("", s), |b| ("-", b));
    let (int, frac) = body.split_at(body.find('.').unwrap_or(body.len()));
    let mut out = String::with_capacity(s.len() + int.len() / 3);
    out += sign;
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out + frac
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::catalogue::FINDING_IDS;

    #[test]
    fn every_catalogue_id_has_its_message() {
        for id in FINDING_IDS {
            let (m, _) = templates().get(id).unwrap_or_else(|| panic!("{id} missing"));
            assert!(!m.is_empty(), "{id}");
        }
        assert_eq!(templates().len(), FINDING_IDS.len());
        assert!(templates()["rwnd_limited"].1.starts_with("Let the receiver"));
    }

    #[test]
    fn numbers_are_shown_as_python_shows_them() {
        let cases: [(Value, &str); 12] = [
            (Value::Int(1234567), "1,234,567"),
            (Value::Int(-1234), "-1,234"),
            (Value::Int(999), "999"),
            (Value::Num(0.25), "0.2"),
            (Value::Num(74.55), "74.5"),
            (Value::Num(999.96), "1,000.0"),
            (Value::Num(1234.5), "1,234"),
            (Value::Num(2500.5), "2,500"),
            (Value::Num(-0.04), "-0.0"),
            (Value::Num(f64::NAN), "nan"),
            (Value::Num(f64::NEG_INFINITY), "-inf"),
            (Value::Text("1G".into()), "1G"),
        ];
        for (v, want) in cases {
            assert_eq!(show(&v), want, "{v:?}");
        }
    }

    #[test]
    fn fill_leaves_unknown_names_as_question_marks() {
        let v = [("a", Value::Int(1000)), ("b", Value::Text("x".into()))];
        assert_eq!(fill("{a} B, {b}, {c}, {", &v), "1,000 B, x, ?, {");
    }
}
