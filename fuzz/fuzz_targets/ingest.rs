//! Fuzz target: any bytes through `CaptureReader::from_read`, reading every frame. The
//! body is shared with `analyzer/core/tests/fuzz_replay.rs`, which replays the
//! seeds without libFuzzer.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../analyzer/core/tests/common/fuzz_ingest.rs");

fuzz_target!(|data: &[u8]| read_everything(data));
