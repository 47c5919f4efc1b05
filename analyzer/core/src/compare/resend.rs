//! Bytes sent more than once before the upstream capture (U) first saw them, from what the
//! sender did next as U saw it.
//!
//! A hole is bytes a retransmission at U carries that U never saw before: their original was
//! lost before U. When the same bytes were lost again before U (a queue overflowing on every
//! round of recovery), nothing of those transmissions reaches U; over IPv4 the identification
//! counts them ([`ipid`](super::ipid)), over IPv6 nothing does. What the sender did next
//! does, for a sender that repairs as RFC 6675 and RACK (RFC 8985) have it:
//!
//! - the hole's latest transmission is deemed lost once the receiver acknowledges (cumulative
//!   ACK or SACK, seen at U on its way back) three segments the sender sent after it
//!   (RFC 6675 DupThresh; RACK, RFC 8985, with the reordering window of a sender that has
//!   seen no reordering: 0 from then on);
//! - a sender that has deemed segments lost retransmits them lowest first (RFC 6675 §4
//!   NextSeg(), rule 1; Linux walks its retransmission queue upward the same way);
//! - a segment whose TSecr is past that ACK's TSval (or equal to it, when no earlier ACK
//!   carried that TSval) left after the sender read the ACK (RFC 7323 §4.3: TSecr echoes
//!   the latest TSval received).
//!
//! So when, after that ACK, the sender retransmits bytes above the hole that it had last
//! sent after the hole (RACK deems lost in send-time order, so the hole was deemed lost no
//! later), before U sees the hole's bytes again, it had retransmitted the hole just before
//! and that transmission was lost before U. That moves the hole's latest transmission there and the question is asked
//! again. New data proves nothing: a paced sender slips new data in between the
//! retransmissions of one upward pass (the lab's BBR senders do). A sender that has seen
//! reordering widens RACK's window; the caller then asks only where the IPv4
//! identifications can confirm each repeat. Without timestamps the order of the sender's
//! reading and sending is not visible at U and nothing is inferred.

use super::acks::{AckSeen, AckTimeline};
use crate::analyse::scoreboard::DUP_THRESH;

/// Bytes U never saw before the retransmission at position `at` carried them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hole {
    pub at: u32,
    pub start: i64,
    pub end: i64,
}

/// A transmission of hole `hole` lost before U, sent after U's position `since` and before
/// its position `before`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeat {
    pub since: u32,
    pub before: u32,
    pub hole: u32,
}

/// U's data direction: per position, sequence position, length, time and TSecr.
pub struct Sent<'a> {
    pub pos: &'a [i64],
    pub lens: &'a [u32],
    pub t: &'a [i64],
    pub tsecr: &'a [Option<u32>],
}

/// Segments sent after a transmission whose acknowledgement is looked for.
const LATER_SEGMENTS: usize = 8;
/// Losses of one hole inferred at most (a hole lost more often is an outage, not recovery).
const MAX_REPEATS: usize = 16;
/// Positions scanned at most for the sender's next move.
const SCAN: usize = 20_000;

/// The transmissions of each hole lost before U beyond its original, in U's order.
pub fn repeats(u: &Sent<'_>, holes: &[Hole], acks: &AckTimeline<'_>) -> Vec<Repeat> {
    // Highest sequence end U had seen before each position (and including it).
    let mut top_before = Vec::with_capacity(u.pos.len());
    let mut top_after = Vec::with_capacity(u.pos.len());
    let mut top = i64::MIN;
    for p in 0..u.pos.len() {
        top_before.push(top);
        if u.lens[p] > 0 {
            top = top.max(u.pos[p] + u.lens[p] as i64);
        }
        top_after.push(top);
    }
    // Per position, where the sender last sent those bytes before: the last position U saw
    // them at, else (never seen) where their original went, just before the first segment
    // U saw beyond them.
    let mut last_at: ahash::AHashMap<i64, usize> = ahash::AHashMap::new();
    let mut previous = Vec::with_capacity(u.pos.len());
    for p in 0..u.pos.len() {
        let first_beyond = || top_after.partition_point(|&x| x <= u.pos[p]);
        previous.push(last_at.get(&u.pos[p]).copied().unwrap_or_else(first_beyond));
        if u.lens[p] > 0 {
            last_at.insert(u.pos[p], p);
        }
    }
    let mut out = Vec::new();
    for (n, h) in holes.iter().enumerate() {
        let seen = h.at as usize;
        // The hole's original left just before the first segment U saw beyond its start.
        let mut latest = top_after.partition_point(|&x| x <= h.start);
        for _ in 0..MAX_REPEATS {
            let Some(next) = next_move(u, &top_before, &previous, h, latest, seen, acks) else { break };
            out.push(Repeat { since: latest as u32, before: next as u32, hole: n as u32 });
            latest = next;
        }
    }
    out.sort_unstable_by_key(|r| (r.before, r.since, r.hole));
    out
}

/// The first position before `seen` where the sender, having read an ACK that deems the
/// transmission of `h` sent just before `latest` lost, retransmits bytes above `h`.
fn next_move(u: &Sent<'_>, top_before: &[i64], previous: &[usize], h: &Hole, latest: usize, seen: usize, acks: &AckTimeline<'_>) -> Option<usize> {
    if latest >= seen {
        return None;
    }
    // The acknowledgement (at U, on its way back) that shows DupThresh segments sent after
    // it delivered.
    let mut acked: Vec<AckSeen> = (latest..seen)
        .filter(|&k| u.lens[k] > 0 && (u.pos[k] + u.lens[k] as i64 <= h.start || u.pos[k] >= h.end))
        .take(LATER_SEGMENTS)
        .filter_map(|k| acks.first_covering(u.pos[k], u.pos[k] + u.lens[k] as i64, u.t[k], u.t[seen]))
        .collect();
    acked.sort_unstable_by_key(|a| a.t);
    // Segments sent after it that must be acknowledged first (Linux's RACK waits for as
    // many before its window drops to 0).
    let deemed_lost = *acked.get(DUP_THRESH as usize - 1)?;
    let echo = deemed_lost.tsval?;
    (latest..seen).take(SCAN).find(|&j| {
        let after = |e: u32| {
            let d = e.wrapping_sub(echo) as i32;
            d > 0 || (d == 0 && deemed_lost.first_of_its_tick)
        };
        let read_it = u.tsecr[j].is_some_and(after) && u.t[j] > deemed_lost.t;
        // Bytes above the hole, last sent after it: deemed lost, they prove the hole was too
        // (RACK orders by send time, whatever its reordering window).
        let above = u.pos[j] >= h.end && u.pos[j] < top_before[j] && previous[j] >= latest;
        read_it && u.lens[j] > 0 && above
    })
}
