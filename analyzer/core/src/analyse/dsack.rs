//! D-SACK detection (RFC 2883 §4): the receiver reports a duplicate segment in the first
//! SACK block.
//!
//! The first block is a D-SACK when it lies wholly at or below the cumulative ACK (its
//! right edge ≤ ACK; a block straddling the ACK is a stale SACK, not a D-SACK), or when
//! it is contained in the second block. Same rule as Wireshark's `tcp.options.sack.dsack`.

use crate::flow::SeqNumber;

/// The duplicate range reported by a D-SACK, if the first block is one.
pub fn dsack(ack: SeqNumber, blocks: &[(u32, u32)]) -> Option<(SeqNumber, SeqNumber)> {
    let &(l, r) = blocks.first()?;
    let (left, right) = (SeqNumber(l), SeqNumber(r));
    if right <= left {
        return None;
    }
    if right <= ack {
        return Some((left, right));
    }
    if let Some(&(l2, r2)) = blocks.get(1) {
        if SeqNumber(l2) <= left && right <= SeqNumber(r2) {
            return Some((left, right));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_block_below_ack_is_dsack() {
        // RFC 2883 §4.1.1: ACK 4000, first block 3000-3500 (a duplicate).
        assert_eq!(dsack(SeqNumber(4000), &[(3000, 3500)]), Some((SeqNumber(3000), SeqNumber(3500))));
    }

    #[test]
    fn first_block_inside_second_is_dsack() {
        // RFC 2883 §4.1.2: ACK 1000, blocks 3000-3500 then 3000-4500.
        assert!(dsack(SeqNumber(1000), &[(3000, 3500), (3000, 4500)]).is_some());
    }

    #[test]
    fn block_straddling_the_ack_is_not_dsack() {
        assert_eq!(dsack(SeqNumber(3326), &[(2692, 3954)]), None);
    }

    #[test]
    fn ordinary_sack_is_not_dsack() {
        assert_eq!(dsack(SeqNumber(1000), &[(3000, 3500), (4000, 4500)]), None);
        assert_eq!(dsack(SeqNumber(1000), &[]), None);
    }

    #[test]
    fn dsack_across_wrap() {
        let ack = SeqNumber(10);
        assert!(dsack(ack, &[(u32::MAX - 100, 5)]).is_some());
    }
}
