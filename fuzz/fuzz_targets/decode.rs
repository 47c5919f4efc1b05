//! Fuzz target for the decode layer: any bytes, any link type, any wire length. The body
//! is shared with `analyzer/core/tests/fuzz_replay.rs`, which replays the seeds on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../../analyzer/core/tests/common/fuzz_decode.rs");

fuzz_target!(|data: &[u8]| decode_everything(data));
