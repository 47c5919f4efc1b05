//! TCP sequence numbers (RFC 9293 §3.4): 32-bit values compared modulo 2^32.
//!
//! Never compare raw `u32` sequence numbers with `<`: a flow that wraps past 2^32 (every
//! 4 GiB, or at once when the ISN is near the top) would invert every comparison. All
//! ordering goes through [`SeqNumber`], whose order is "a < b iff (b − a) mod 2^32 is in
//! (0, 2^31)". Values more than 2^31 apart are not comparable; no sane window is.

use std::cmp::Ordering;
use std::ops::{Add, Sub};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeqNumber(pub u32);

impl SeqNumber {
    /// The number of bytes from `earlier` to `self` (may be negative).
    #[inline]
    pub fn distance_from(self, earlier: SeqNumber) -> i32 {
        self.0.wrapping_sub(earlier.0) as i32
    }
    #[inline]
    pub fn max(self, other: SeqNumber) -> SeqNumber {
        if other > self { other } else { self }
    }
    #[inline]
    pub fn min(self, other: SeqNumber) -> SeqNumber {
        if other < self { other } else { self }
    }
}

impl PartialOrd for SeqNumber {
    #[inline]
    fn partial_cmp(&self, other: &SeqNumber) -> Option<Ordering> {
        Some(self.distance_from(*other).cmp(&0))
    }
}

impl Add<u32> for SeqNumber {
    type Output = SeqNumber;
    #[inline]
    fn add(self, n: u32) -> SeqNumber {
        SeqNumber(self.0.wrapping_add(n))
    }
}

impl Sub<u32> for SeqNumber {
    type Output = SeqNumber;
    #[inline]
    fn sub(self, n: u32) -> SeqNumber {
        SeqNumber(self.0.wrapping_sub(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_holds_across_wrap() {
        let near_top = SeqNumber(u32::MAX - 10);
        let wrapped = near_top + 100;
        assert_eq!(wrapped.0, 89);
        assert!(wrapped > near_top);
        assert_eq!(wrapped.distance_from(near_top), 100);
        assert_eq!(near_top.distance_from(wrapped), -100);
    }

    #[test]
    fn max_and_min_use_sequence_order() {
        let a = SeqNumber(u32::MAX);
        let b = SeqNumber(5);
        assert_eq!(a.max(b), b);
        assert_eq!(a.min(b), a);
    }
}
