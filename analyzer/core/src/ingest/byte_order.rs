//! Byte order of a pcap file or pcapng section, and field reads that cannot panic.
//!
//! Callers check a header's length once; the reads below then never fall short. Should
//! one ever be asked for bytes past the end, it yields 0 rather than panicking.

/// Byte order, fixed by the file's magic number (pcap) or the section's byte-order magic
/// (pcapng).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    pub fn u16(self, b: &[u8], at: usize) -> u16 {
        match b.get(at..at.wrapping_add(2)) {
            Some(&[x0, x1]) => match self {
                ByteOrder::Little => u16::from_le_bytes([x0, x1]),
                ByteOrder::Big => u16::from_be_bytes([x0, x1]),
            },
            _ => 0,
        }
    }

    pub fn u32(self, b: &[u8], at: usize) -> u32 {
        match b.get(at..at.wrapping_add(4)) {
            Some(&[x0, x1, x2, x3]) => match self {
                ByteOrder::Little => u32::from_le_bytes([x0, x1, x2, x3]),
                ByteOrder::Big => u32::from_be_bytes([x0, x1, x2, x3]),
            },
            _ => 0,
        }
    }

    pub fn u64(self, b: &[u8], at: usize) -> u64 {
        let hi_lo = (
            self.u32(b, at) as u64,
            self.u32(b, at.wrapping_add(4)) as u64,
        );
        match self {
            ByteOrder::Little => hi_lo.1 << 32 | hi_lo.0,
            ByteOrder::Big => hi_lo.0 << 32 | hi_lo.1,
        }
    }

    pub fn put_u16(self, v: u16) -> [u8; 2] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }

    pub fn put_u32(self, v: u32) -> [u8; 4] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }

    pub fn put_u64(self, v: u64) -> [u8; 8] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ByteOrder;

    #[test]
    fn short_slice_reads_zero() {
        assert_eq!(ByteOrder::Little.u32(&[1, 2, 3], 0), 0);
        assert_eq!(ByteOrder::Big.u16(&[1, 2], usize::MAX), 0);
    }

    #[test]
    fn u64_reads_both_orders() {
        let b = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(ByteOrder::Little.u64(&b, 0), 0x0807_0605_0403_0201);
        assert_eq!(ByteOrder::Big.u64(&b, 0), 0x0102_0304_0506_0708);
    }
}
