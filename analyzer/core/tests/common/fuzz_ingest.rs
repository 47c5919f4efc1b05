// The ingest fuzz target's body, `include!`d by `fuzz/fuzz_targets/ingest.rs` (libFuzzer)
// and by `fuzz_replay.rs` (stable CI), so the two cannot drift: any bytes through
// `CaptureReader::from_read`, every frame read. The reader must never panic, hang or
// allocate beyond its caps.
fn read_everything(data: &[u8]) {
    let Ok(mut reader) = tcpdiag_core::ingest::CaptureReader::from_read(Box::new(std::io::Cursor::new(data.to_vec())))
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
}
