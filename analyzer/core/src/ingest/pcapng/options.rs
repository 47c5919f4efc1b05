//! Options: the list of (code, length, value padded to 32 bits) that ends most pcapng
//! blocks, closed by `opt_endofopt` or by the end of the block.

use crate::ingest::byte_order::ByteOrder;
use crate::ingest::{FrameOptions, IngestErrorKind};

pub const OPT_ENDOFOPT: u16 = 0;
pub const OPT_COMMENT: u16 = 1;

/// Packet options (EPB; the obsolete Packet Block uses codes 2 and 3 the same way).
pub const EPB_FLAGS: u16 = 2;
pub const EPB_DROPCOUNT: u16 = 4;
pub const EPB_PACKETID: u16 = 5;
pub const EPB_QUEUE: u16 = 6;
pub const EPB_VERDICT: u16 = 7;

const OPTION_HEADER_LEN: usize = 4;

/// One option, value without padding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawOption<'a> {
    pub code: u16,
    pub value: &'a [u8],
}

/// Iterates the options in `bytes`. An option that claims more bytes than remain ends the
/// list and is remembered in `overrun`: Wireshark rejects such a block, and so do the
/// block parsers here. Fewer than 4 bytes left, or no `opt_endofopt`, is a clean end.
pub struct Options<'a> {
    rest: &'a [u8],
    order: ByteOrder,
    /// (code, length) of an option running past the end of the block.
    pub overrun: Option<(u16, u16)>,
}

impl<'a> Options<'a> {
    pub fn new(bytes: &'a [u8], order: ByteOrder) -> Self {
        Options {
            rest: bytes,
            order,
            overrun: None,
        }
    }

    /// `Corrupt` naming the block when an option ran past its end.
    pub fn check(&self, block: &str) -> Result<(), IngestErrorKind> {
        match self.overrun {
            None => Ok(()),
            Some((code, len)) => Err(IngestErrorKind::Corrupt(format!(
                "{block} option {code} of length {len} runs past the end of the block"
            ))),
        }
    }
}

impl<'a> Iterator for Options<'a> {
    type Item = RawOption<'a>;

    fn next(&mut self) -> Option<RawOption<'a>> {
        let code = self.order.u16(self.rest, 0);
        let len = self.order.u16(self.rest, 2) as usize;
        let value = self.rest.get(OPTION_HEADER_LEN..OPTION_HEADER_LEN + len);
        match value {
            Some(value) if code != OPT_ENDOFOPT => {
                let padded = OPTION_HEADER_LEN + len.next_multiple_of(4);
                self.rest = self.rest.get(padded..).unwrap_or_default();
                Some(RawOption { code, value })
            }
            None if self.rest.len() >= OPTION_HEADER_LEN && code != OPT_ENDOFOPT => {
                self.overrun = Some((code, len as u16));
                self.rest = &[];
                None
            }
            _ => {
                self.rest = &[];
                None
            }
        }
    }
}

/// A UTF-8 option value (invalid sequences replaced). Some writers count a terminating NUL.
pub fn text(value: &[u8]) -> String {
    let end = value.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    String::from_utf8_lossy(&value[..end]).into_owned()
}

pub fn u32_value(value: &[u8], order: ByteOrder) -> Option<u32> {
    (value.len() >= 4).then(|| order.u32(value, 0))
}

pub fn u64_value(value: &[u8], order: ByteOrder) -> Option<u64> {
    (value.len() >= 8).then(|| order.u64(value, 0))
}

/// Fills `out` from a packet block's options; true when any option was kept.
pub fn read_frame_options(
    bytes: &[u8],
    order: ByteOrder,
    out: &mut FrameOptions,
    block: &str,
) -> Result<bool, IngestErrorKind> {
    out.comments.clear();
    out.verdicts.clear();
    out.flags = None;
    out.drop_count = None;
    out.packet_id = None;
    out.queue = None;
    let mut opts = Options::new(bytes, order);
    for opt in &mut opts {
        match opt.code {
            OPT_COMMENT => out.comments.push(text(opt.value)),
            EPB_FLAGS => out.flags = u32_value(opt.value, order),
            EPB_DROPCOUNT => out.drop_count = u64_value(opt.value, order),
            EPB_PACKETID => out.packet_id = u64_value(opt.value, order),
            EPB_QUEUE => out.queue = u32_value(opt.value, order),
            EPB_VERDICT => out.verdicts.push(opt.value.to_vec()),
            _ => {}
        }
    }
    opts.check(block)?;
    Ok(!out.comments.is_empty()
        || !out.verdicts.is_empty()
        || out.flags.is_some()
        || out.drop_count.is_some()
        || out.packet_id.is_some()
        || out.queue.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_skip_padding_and_stop_at_end() {
        let b = [
            1, 0, 3, 0, b'a', b'b', b'c', 0, 2, 0, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0,
        ];
        let v: Vec<_> = Options::new(&b, ByteOrder::Little).collect();
        assert_eq!(v.len(), 2);
        assert_eq!(
            v[0],
            RawOption {
                code: 1,
                value: b"abc"
            }
        );
        assert_eq!(v[1].code, 2);
    }

    #[test]
    fn option_overrunning_block_ends_list() {
        let b = [1, 0, 9, 0, b'a', b'b'];
        let mut opts = Options::new(&b, ByteOrder::Little);
        assert_eq!(opts.by_ref().count(), 0);
        assert_eq!(opts.overrun, Some((1, 9)));
        assert!(opts.check("EPB").is_err());
    }

    #[test]
    fn short_tail_without_end_of_options_is_clean() {
        let b = [1, 0, 2, 0, b'h', b'i', 0, 0, 1, 0];
        let mut opts = Options::new(&b, ByteOrder::Little);
        assert_eq!(opts.by_ref().count(), 1);
        assert_eq!(opts.overrun, None);
    }

    #[test]
    fn text_drops_terminating_nul() {
        assert_eq!(text(b"eth0\0\0"), "eth0");
    }
}
