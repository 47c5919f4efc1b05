//! Fuzz target: any bytes through `CaptureReader::from_read`, reading every frame. The
//! reader must never panic, hang or allocate beyond its caps. Kept in step with
//! `analyzer/core/tests/ingest_fuzz_replay.rs`, which replays the seeds without libFuzzer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcpdiag_core::ingest::CaptureReader;

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = CaptureReader::from_read(Box::new(std::io::Cursor::new(data.to_vec())))
    else {
        return;
    };
    let mut last = 0;
    while let Ok(Some(frame)) = reader.next_frame() {
        assert_eq!(frame.caplen as usize, frame.data.len());
        assert!(frame.number > last);
        last = frame.number;
    }
    assert!(matches!(reader.next_frame(), Ok(None)));
});
