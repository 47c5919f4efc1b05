//! Little-endian field access that cannot panic, and the Windows GUID.
//!
//! Every ETL structure is little-endian. Accessors return `None` past the end of the
//! slice, so a decoder checks a length once and then reads named offsets.

use std::fmt;

#[inline]
pub(crate) fn u8_at(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

#[inline]
pub(crate) fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    let s = b.get(off..off.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

#[inline]
pub(crate) fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline]
pub(crate) fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    let s = b.get(off..off.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

#[inline]
pub(crate) fn i64_at(b: &[u8], off: usize) -> Option<i64> {
    u64_at(b, off).map(|v| v as i64)
}

pub(crate) fn guid_at(b: &[u8], off: usize) -> Option<Guid> {
    let s = b.get(off..off.checked_add(16)?)?;
    let mut a = [0u8; 16];
    a.copy_from_slice(s);
    Some(Guid(a))
}

/// A NUL-terminated UTF-16LE string starting at `off`; returns the text and the bytes
/// consumed (terminator included). An unterminated string runs to the end of `b`.
pub(crate) fn utf16z_at(b: &[u8], off: usize) -> Option<(String, usize)> {
    let rest = b.get(off..)?;
    let mut units = Vec::new();
    let mut used = 0;
    while used + 1 < rest.len() {
        let u = u16::from_le_bytes([rest[used], rest[used + 1]]);
        used += 2;
        if u == 0 {
            return Some((String::from_utf16_lossy(&units), used));
        }
        units.push(u);
    }
    Some((String::from_utf16_lossy(&units), rest.len()))
}

/// Rounds up to the next multiple of 8 (ETW aligns records and extended items to 8).
#[inline]
pub(crate) fn align8(n: usize) -> Option<usize> {
    n.checked_add(7).map(|v| v & !7)
}

/// A GUID in its in-memory (mixed-endian) byte order, as ETW stores it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// Builds a GUID from its textual fields, e.g. `{2ED6006E-4729-4609-B423-3EE7BCD678EF}`.
    pub const fn from_fields(d1: u32, d2: u16, d3: u16, d4: [u8; 8]) -> Guid {
        let a = d1.to_le_bytes();
        let b = d2.to_le_bytes();
        let c = d3.to_le_bytes();
        Guid([
            a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d4[0], d4[1], d4[2], d4[3], d4[4], d4[5],
            d4[6], d4[7],
        ])
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = &self.0;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
            u32::from_le_bytes([g[0], g[1], g[2], g[3]]),
            u16::from_le_bytes([g[4], g[5]]),
            u16::from_le_bytes([g[6], g[7]]),
            g[8],
            g[9],
            g[10],
            g[11],
            g[12],
            g[13],
            g[14],
            g[15]
        )
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{self}}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_text_matches_registry_spelling() {
        let g = Guid::from_fields(0x2ED6006E, 0x4729, 0x4609, [0xB4, 0x23, 0x3E, 0xE7, 0xBC, 0xD6, 0x78, 0xEF]);
        assert_eq!(g.to_string(), "2ed6006e-4729-4609-b423-3ee7bcd678ef");
        assert_eq!(g.0[..4], [0x6E, 0x00, 0xD6, 0x2E]);
    }

    #[test]
    fn accessors_stop_at_the_end() {
        let b = [1u8, 2, 3];
        assert_eq!(u16_at(&b, 1), Some(0x0302));
        assert_eq!(u16_at(&b, 2), None);
        assert_eq!(u64_at(&b, usize::MAX), None);
        assert_eq!(utf16z_at(&[b'a', 0, 0, 0, b'b'], 0), Some(("a".to_string(), 4)));
    }
}
