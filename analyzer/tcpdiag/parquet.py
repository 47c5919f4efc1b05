"""Parquet output of the packets table, written one row group per chunk (bounded memory)."""

from __future__ import annotations

import pyarrow.parquet as pq

from tcpdiag import tables


def write_packets_parquet(capture: str, out: str, chunk_rows: int = 1_000_000, *,
                          analysis: bool = False) -> tables.ScanResult:
    """One row group per chunk; with `analysis`, the analysis columns too (codes as
    dictionary-encoded strings, like the DataFrame's categories)."""
    chunks = tables.PacketChunks(capture, chunk_rows, analysis=analysis)
    schema = tables.schema("analysis" if analysis else "packets")
    with pq.ParquetWriter(out, schema) as writer:
        for chunk in chunks:
            writer.write_table(chunk["packets"].cast(schema))
    assert chunks.result is not None
    return chunks.result
