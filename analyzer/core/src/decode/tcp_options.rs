//! TCP options (RFC 9293 §3.2, RFC 7323, RFC 2018, RFC 7413, RFC 8684).

/// Options relevant to performance analysis. Kinds not listed are skipped over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpOptions {
    /// Kind 2 (MSS), SYN only.
    pub mss: Option<u16>,
    /// Kind 3 (window scale), shift count as sent (may exceed 14; the receiver clamps).
    pub wscale: Option<u8>,
    /// Kind 4 (SACK permitted).
    pub sack_permitted: bool,
    /// Kind 5 (SACK): up to 4 blocks (left edge, right edge), raw sequence numbers.
    pub sack: [(u32, u32); 4],
    pub sack_count: u8,
    /// Kind 8 (timestamps): (TSval, TSecr).
    pub timestamps: Option<(u32, u32)>,
    /// Kind 34 (TCP Fast Open) present, or the experimental kind 254 with magic 0xF989.
    pub tfo: bool,
    /// Kind 30 (MPTCP) present.
    pub mptcp: bool,
    /// The option list ended early: a length ran past the header or the capture.
    pub malformed: bool,
}

impl TcpOptions {
    pub fn sack_blocks(&self) -> &[(u32, u32)] {
        &self.sack[..self.sack_count as usize]
    }
}
