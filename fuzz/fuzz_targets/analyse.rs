//! Fuzz target for the per-packet analysis and the verdict: arbitrary segment sequences
//! through the flow table, `Analyzer` and `verdict::judge`, checking the engine's
//! invariants. The body is shared with `analyzer/core/tests/fuzz_replay.rs` (stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../analyzer/core/tests/common/fuzz_analyse.rs");

fuzz_target!(|data: &[u8]| analyse_everything(data));
