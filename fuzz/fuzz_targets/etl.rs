//! Fuzz target: any bytes as a Windows ETL trace (container, per-CPU merge, records,
//! schemas, packet events, conversion) and as XPRESS streams (Plain LZ77, LZ77+Huffman).
//! The body is `tcpdiag_etl::fuzz::exercise`, also replayed on stable by
//! `etl/tests/fuzz_replay.rs` over `seeds/etl/` and fixed-seed mutations.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tcpdiag_etl::fuzz::exercise(data);
});
