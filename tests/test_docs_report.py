"""The report's documentation is current: CLI reference generated from --help, every verdict
explained with a picture, the JSON and API pages naming every field."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from conftest import FINDINGS, ROOT

from tcpdiag import tables
from tcpdiag.api import EVENT_COLUMNS
from tcpdiag.report import jsondoc

DOCS = ROOT / "docs"


def test_cli_reference_is_current_and_every_command_has_an_example():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_cli_docs.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_verdict_has_a_section_and_its_picture_exists():
    text = (DOCS / "verdicts.md").read_text()
    for fid, f in FINDINGS.items():
        if f["scope"] == "flow":
            assert f"`{fid}`" in text, f"docs/verdicts.md does not explain {fid}"
    pictures = re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", text)
    assert len(pictures) >= 8
    for p in pictures:
        png = (DOCS / p).read_bytes()
        assert png.startswith(b"\x89PNG") and 2_000 < len(png) < 200_000, p


def _fields(schema: dict, node: dict) -> set[str]:
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    out = set(node.get("properties", {}))
    for sub in node.get("properties", {}).values():
        out |= _fields(schema, sub) if isinstance(sub, dict) and ("properties" in sub or "$ref" in sub) else set()
    return out


def test_json_page_names_every_schema_field():
    schema = jsondoc.schema()
    text = (DOCS / "json-schema.md").read_text()
    missing = sorted(f for f in _fields(schema, schema) | _fields(schema, schema["$defs"]["flow"])
                     if f"`{f}`" not in text)
    assert not missing, f"docs/json-schema.md does not describe {missing}"
    assert json.dumps(schema)  # and it is valid JSON shipped in the package


def test_tables_page_is_generated_from_the_engines_schemas():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_tables_doc.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_tables_page_lists_every_column_of_every_table():
    text = (DOCS / "tables.md").read_text()
    for name in ("verdict", "findings", "analysis", "events", "series", "sacks"):
        for field in tables.schema(name):
            assert f"`{field.name}`" in text, (name, field.name)
    for col in EVENT_COLUMNS:
        assert f"`{col}`" in text, col
