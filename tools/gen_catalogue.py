#!/usr/bin/env python3
"""Generates every derived form of catalogue/findings.toml.

    python3 tools/gen_catalogue.py          # write the generated files
    python3 tools/gen_catalogue.py --check  # exit 1 if any is stale (run by the tests)
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "catalogue" / "findings.toml"
HEADER = "generated from catalogue/findings.toml by tools/gen_catalogue.py — do not edit"
KEYS = ("id", "field", "group", "severity", "scope", "message", "remedy", "doc")
#: packet: an event on one frame; flow: a verdict or flow-wide finding of one capture; pair: a
#: finding of `tcpdiag compare` about one flow seen in two captures (evidence in both).
SCOPES = ("packet", "flow", "pair")


def load() -> list[dict]:
    findings = tomllib.loads(SOURCE.read_text())["finding"]
    ids = [f["id"] for f in findings]
    assert len(ids) == len(set(ids)), "duplicate finding ids"
    for f in findings:
        assert f["severity"] in ("chat", "note", "warn", "error"), f
        assert f["group"] in ("sequence", "protocol", "malformed", "comment"), f
        assert f["scope"] in SCOPES, f
        assert f["field"].startswith("tcpdiag."), f
        assert f["scope"] == "packet" or f.get("remedy"), f"verdict {f['id']} needs a remedy"
    return findings


def _camel(ident: str) -> str:
    return "".join(part.capitalize() for part in ident.split("_"))


def _rust_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def rust(findings: list[dict]) -> str:
    """The Rust enum of finding ids with each entry's texts: the engine renders messages
    and remedies from these (analyse/finding.rs), so no other surface formats them."""
    n = len(findings)
    lines = [f"//! The findings catalogue ({HEADER}).", "",
             "/// Every finding tcpdiag reports, in catalogue order.",
             "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]",
             "#[repr(u8)]", "pub enum FindingId {"]
    lines += [f"    {_camel(f['id'])}," for f in findings]
    lines += ["}", "",
              "/// Expert severity, lowest first (policy, not detection: set in the catalogue).",
              "#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]",
              "pub enum Severity {", "    Chat,", "    Note,", "    Warn,", "    Error,", "}", "",
              "/// What a finding is about (catalogue `scope`).",
              "#[derive(Debug, Clone, Copy, PartialEq, Eq)]",
              "pub enum Scope {",
              "    /// An event on one frame.",
              "    Packet,",
              "    /// A verdict or flow-wide finding of one capture.",
              "    Flow,",
              "    /// A finding of `tcpdiag compare` about one flow seen in two captures.",
              "    Pair,",
              "}", "",
              "/// One catalogue entry.",
              "#[derive(Debug)]",
              "pub struct Entry {",
              "    pub id: &'static str,",
              "    /// Wireshark-style filter name (tcpdiag.analysis.*, tcpdiag.verdict.*).",
              "    pub field: &'static str,",
              "    pub group: &'static str,",
              "    pub severity: Severity,",
              "    pub scope: Scope,",
              "    /// Message template: `{name}` is filled from the finding's values.",
              "    pub message: &'static str,",
              "    /// Remedy template (empty for packet events).",
              "    pub remedy: &'static str,",
              "}", "",
              f"pub static ENTRIES: [Entry; {n}] = ["]
    for f in findings:
        sev = f["severity"].capitalize()
        lines += ["    Entry {",
                  f"        id: {_rust_str(f['id'])},",
                  f"        field: {_rust_str(f['field'])},",
                  f"        group: {_rust_str(f['group'])},",
                  f"        severity: Severity::{sev},",
                  f"        scope: Scope::{f['scope'].capitalize()},",
                  f"        message: {_rust_str(f['message'].strip())},",
                  f"        remedy: {_rust_str(f.get('remedy', '').strip())},",
                  "    },"]
    lines += ["];", "", "impl FindingId {",
              f"    pub const ALL: [FindingId; {n}] = ["]
    lines += [f"        FindingId::{_camel(f['id'])}," for f in findings]
    lines += ["    ];", "",
              "    pub fn entry(self) -> &'static Entry {", "        &ENTRIES[self as usize]", "    }", "",
              "    /// The stable snake_case id (JSON, CSV, Python).",
              "    pub fn name(self) -> &'static str {", "        self.entry().id", "    }", "",
              "    pub fn parse(id: &str) -> Option<FindingId> {",
              "        FindingId::ALL.iter().copied().find(|f| f.name() == id)", "    }", "}"]
    return "\n".join(lines) + "\n"


def markdown(findings: list[dict]) -> str:
    out = [f"<!-- {HEADER} -->", "# Findings and verdicts", "",
           "Every finding tcpdiag reports, with its Wireshark-style field name, severity and meaning. "
           "In a message, `{name}` is a figure of the finding's evidence, and a clause in `[brackets]` "
           "is said only when the capture gave every figure in it (an RTT, a capacity).", ""]
    for scope, title in (("flow", "Verdicts (per flow)"), ("packet", "Packet events"),
                         ("pair", "Localisation (tcpdiag compare: one flow in two captures)")):
        out += [f"## {title}", ""]
        for f in findings:
            if f["scope"] != scope:
                continue
            out += [f"### `{f['id']}` — `{f['field']}`", "",
                    f"*{f['severity']}, {f['group']}.* Message: “{f['message']}”", ""]
            if f.get("remedy"):
                out += [f"**Remedy:** {f['remedy']}", ""]
            out += [" ".join(f["doc"].split()), ""]
    return "\n".join(out)


LUA_PLUGIN = ROOT / "wireshark-plugin" / "tcpdiag.lua"
LUA_BEGIN = "-- BEGIN GENERATED CATALOGUE"
LUA_END = "-- END GENERATED CATALOGUE"


def _lua_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def lua(findings: list[dict]) -> str:
    """The plugin with its expert table (between the markers) regenerated: one row per
    entry, the message template as the expert's description (the texts shown come
    finished from the engine's annotations)."""
    rows = [f"{LUA_BEGIN} ({HEADER})", "local CATALOGUE = {", "    -- id, field, group, severity, description"]
    # Pair findings come from two captures (tcpdiag compare): the plugin shows one capture
    # and has no way to receive them yet, so its expert table holds the other scopes only.
    for f in (f for f in findings if f["scope"] != "pair"):
        cells = ", ".join(_lua_str(f.get(k, "").strip()) for k in ("id", "field", "group", "severity", "message"))
        rows.append(f"    {{ {cells} }},")
    rows += ["}", LUA_END]
    text = LUA_PLUGIN.read_text()
    head, sep, rest = text.partition(LUA_BEGIN)
    _, sep2, tail = rest.partition(LUA_END)
    assert sep and sep2, f"{LUA_PLUGIN} lacks the {LUA_BEGIN} / {LUA_END} markers"
    return head + "\n".join(rows) + tail


TARGETS = {
    ROOT / "analyzer" / "core" / "src" / "analyse" / "catalogue.rs": rust,
    ROOT / "docs" / "findings.md": markdown,
    LUA_PLUGIN: lua,
}


def main() -> int:
    findings = load()
    stale = []
    for path, gen in TARGETS.items():
        text = gen(findings)
        if "--check" in sys.argv:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
    if stale:
        print("stale generated files (run python3 tools/gen_catalogue.py):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
