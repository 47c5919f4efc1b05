// The decode fuzz target's body, `include!`d by `fuzz/fuzz_targets/decode.rs` (libFuzzer)
// and by `fuzz_replay.rs` (stable CI): any bytes, any link type, any wire length.
//
// Input layout: byte 0 picks a link type, bytes 1..5 (LE) are added to the frame length to
// form `origlen` (0 = untruncated), the rest is the frame. Seeds: `fuzz/seeds/decode/`.
fn decode_everything(data: &[u8]) {
    const LINKTYPES: [u32; 16] = [0, 1, 9, 10, 12, 14, 50, 51, 101, 105, 108, 113, 228, 229, 276, 147];
    if data.len() < 5 {
        return;
    }
    let linktype = LINKTYPES[data[0] as usize % LINKTYPES.len()];
    let extra = u32::from_le_bytes([data[1], data[2], data[3], data[4]]);
    let frame = &data[5..];
    let origlen = (frame.len() as u32).saturating_add(extra);
    if let tcpdiag_core::decode::Decoded::Tcp(s) = tcpdiag_core::decode::decode(linktype, frame, origlen) {
        assert!(s.payload_captured as usize <= frame.len());
        assert!(s.payload_captured <= s.payload_len);
        assert!(s.header_len >= 20 && s.header_len <= 60);
        assert!(s.options.sack_count <= 4);
    }
}
