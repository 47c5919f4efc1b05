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
    /// The option list ended early: a length ran past the header.
    pub malformed: bool,
    /// The capture (snaplen) cut the options: those present were parsed, others unknown.
    pub truncated: bool,
}

impl TcpOptions {
    pub fn sack_blocks(&self) -> &[(u32, u32)] {
        &self.sack[..self.sack_count as usize]
    }
}

const EOL: u8 = 0;
const NOP: u8 = 1;
const MSS: u8 = 2;
const WSCALE: u8 = 3;
const SACK_PERMITTED: u8 = 4;
const SACK: u8 = 5;
const TIMESTAMPS: u8 = 8;
const MPTCP: u8 = 30;
const TFO: u8 = 34;
/// RFC 6994 shared experimental kind; TFO's pre-RFC form uses it with magic 0xF989.
const EXPERIMENTAL: u8 = 254;
const TFO_EXPERIMENT_ID: [u8; 2] = [0xF9, 0x89];

const SACK_BLOCK_LEN: usize = 8;
const MAX_SACK_BLOCKS: usize = 4;

impl TcpOptions {
    /// Parses the option bytes of a TCP header (after the 20 fixed bytes). A length byte
    /// below 2 or past the header ends parsing with `malformed` set; a known kind with the
    /// wrong length is skipped and also sets `malformed` (Wireshark flags both).
    pub fn parse(b: &[u8]) -> TcpOptions {
        let mut o = TcpOptions::default();
        o.parse_into(b);
        o
    }

    /// [`Self::parse`] into options already in place (the decoded segment's), which the
    /// caller has reset to the default: only options present are written.
    ///
    /// Linux sends timestamps first (NOP, NOP, kind 8, length 10) on every segment: that
    /// prefix is taken here, inlined into the decoder, exactly as the loop would take it;
    /// whatever follows it (SACK blocks, other options), or any other list, goes to the loop.
    #[inline(always)]
    pub fn parse_into(&mut self, b: &[u8]) {
        const TIMESTAMPS_FIRST: [u8; 4] = [NOP, NOP, TIMESTAMPS, 10];
        if let Some((head, rest)) = b.split_first_chunk::<12>() {
            let [h0, h1, h2, h3, a0, a1, a2, a3, e0, e1, e2, e3] = *head;
            if [h0, h1, h2, h3] == TIMESTAMPS_FIRST {
                self.timestamps = Some((u32::from_be_bytes([a0, a1, a2, a3]), u32::from_be_bytes([e0, e1, e2, e3])));
                if !rest.is_empty() {
                    self.parse_from(b, 12);
                }
                return;
            }
        }
        self.parse_from(b, 0);
    }

    /// The option loop from byte `i` of the list.
    #[inline(never)]
    fn parse_from(&mut self, b: &[u8], mut i: usize) {
        let o = self;
        while i < b.len() {
            let kind = b[i];
            match kind {
                EOL => break,
                NOP => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            let Some(&len) = b.get(i + 1) else {
                o.malformed = true;
                break;
            };
            let len = len as usize;
            if len < 2 || i + len > b.len() {
                o.malformed = true;
                break;
            }
            let v = &b[i + 2..i + len];
            match (kind, v.len()) {
                (MSS, 2) => o.mss = Some(u16::from_be_bytes([v[0], v[1]])),
                (WSCALE, 1) => o.wscale = Some(v[0]),
                (SACK_PERMITTED, 0) => o.sack_permitted = true,
                (SACK, n) if n > 0 && n % SACK_BLOCK_LEN == 0 => {
                    let blocks = v.chunks_exact(SACK_BLOCK_LEN).take(MAX_SACK_BLOCKS);
                    for (slot, blk) in o.sack.iter_mut().zip(blocks) {
                        let left = u32::from_be_bytes([blk[0], blk[1], blk[2], blk[3]]);
                        let right = u32::from_be_bytes([blk[4], blk[5], blk[6], blk[7]]);
                        *slot = (left, right);
                    }
                    o.sack_count = (n / SACK_BLOCK_LEN).min(MAX_SACK_BLOCKS) as u8;
                }
                (TIMESTAMPS, 8) => {
                    let tsval = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
                    let tsecr = u32::from_be_bytes([v[4], v[5], v[6], v[7]]);
                    o.timestamps = Some((tsval, tsecr));
                }
                (TFO, _) => o.tfo = true,
                (EXPERIMENTAL, n) if n >= 2 && v[..2] == TFO_EXPERIMENT_ID => o.tfo = true,
                (MPTCP, n) if n >= 1 => o.mptcp = true,
                (MSS | WSCALE | SACK_PERMITTED | SACK | TIMESTAMPS | MPTCP, _) => {
                    o.malformed = true
                }
                _ => {} // other kinds: skipped by their length
            }
            i += len;
        }
    }
}
