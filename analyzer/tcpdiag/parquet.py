"""Parquet output of the packets table, written one row group per chunk (bounded memory)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from tcpdiag import tables

SCHEMA = pa.schema([
    ("frame", pa.uint64()), ("stream", pa.uint32()), ("dir", pa.uint8()),
    ("ts", pa.timestamp("ns", tz="UTC")),
    ("src", pa.dictionary(pa.int32(), pa.string())), ("sport", pa.uint16()),
    ("dst", pa.dictionary(pa.int32(), pa.string())), ("dport", pa.uint16()),
    ("seq_raw", pa.uint32()), ("ack_raw", pa.uint32()), ("tcp_len", pa.uint32()),
    ("flags", pa.uint16()), ("win_raw", pa.uint16()),
])


def _batch(chunk: dict) -> pa.RecordBatch:
    addrs = pa.array(chunk["addrs"], pa.string())

    def addr(codes):
        return pa.DictionaryArray.from_arrays(pa.array(codes.astype("int32")), addrs)

    cols = [
        pa.array(chunk["frame"]), pa.array(chunk["stream"]), pa.array(chunk["dir"]),
        pa.array(chunk["ts_ns"]).cast(pa.timestamp("ns", tz="UTC")),
        addr(chunk["src"]), pa.array(chunk["sport"]), addr(chunk["dst"]), pa.array(chunk["dport"]),
        pa.array(chunk["seq_raw"]), pa.array(chunk["ack_raw"]), pa.array(chunk["tcp_len"]),
        pa.array(chunk["flags"]), pa.array(chunk["win_raw"]),
    ]
    return pa.RecordBatch.from_arrays(cols, schema=SCHEMA)


def write_packets_parquet(capture: str, out: str, chunk_rows: int = 1_000_000, *,
                          analysis: bool = False) -> tables.ScanResult:
    """One row group per chunk. With `analysis`, the analysis columns follow (codes as
    dictionary-encoded strings, like the DataFrame's categories)."""
    chunks = tables.PacketChunks(capture, chunk_rows, analysis=analysis)
    writer = None
    try:
        for chunk in chunks:
            if analysis:
                from tcpdiag.api import analysis_frame

                table = pa.Table.from_pandas(analysis_frame(chunk), preserve_index=False)
            else:
                table = pa.Table.from_batches([_batch(chunk)])
            if writer is None:
                writer = pq.ParquetWriter(out, table.schema)
            writer.write_table(table)
        if writer is None:  # no TCP at all: an empty file with the wire schema
            writer = pq.ParquetWriter(out, SCHEMA)
    finally:
        if writer is not None:
            writer.close()
    assert chunks.result is not None
    return chunks.result
