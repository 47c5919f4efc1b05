//! The rendezvous of engines that split the flows between them (`ranges.rs`): at every
//! sweep each adds its active flows, and all go on with the sum — the `open` count that
//! [`finalisable`](crate::analyse::finalisable) reads is the count of the whole capture.

use std::sync::{Condvar, Mutex};

pub(super) struct Tally {
    engines: usize,
    state: Mutex<Round>,
    turned: Condvar,
}

#[derive(Default)]
struct Round {
    number: u64,
    arrived: usize,
    sum: usize,
    /// The sum of the last completed round.
    last: usize,
    /// Largest sum so far (the peak of active flows falls just before a sweep).
    peak: usize,
    /// An engine gave up: nobody waits any more.
    abandoned: bool,
}

impl Tally {
    pub fn new(engines: usize) -> Tally {
        Tally { engines, state: Mutex::new(Round::default()), turned: Condvar::new() }
    }

    /// Adds `mine` and waits for the other engines' counts: the sum. While waiting it runs
    /// `meanwhile` until that has nothing left to do. After [`abandon`](Tally::abandon),
    /// `mine` comes back at once (the run's results are dropped).
    pub fn add_up(&self, mine: usize, meanwhile: &mut dyn FnMut() -> bool) -> usize {
        let mut r = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if r.abandoned {
            return mine;
        }
        let number = r.number;
        r.sum += mine;
        r.arrived += 1;
        if r.arrived == self.engines {
            r.last = r.sum;
            r.peak = r.peak.max(r.sum);
            r.sum = 0;
            r.arrived = 0;
            r.number += 1;
            self.turned.notify_all();
            return r.last;
        }
        let mut busy = true;
        while r.number == number && !r.abandoned {
            if busy {
                drop(r);
                busy = meanwhile();
                r = self.state.lock().unwrap_or_else(|p| p.into_inner());
            } else {
                r = self.turned.wait(r).unwrap_or_else(|p| p.into_inner());
            }
        }
        if r.abandoned {
            mine
        } else {
            r.last
        }
    }

    /// Largest sum any round saw.
    pub fn peak(&self) -> usize {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).peak
    }

    /// Releases every waiter for good.
    pub fn abandon(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).abandoned = true;
        self.turned.notify_all();
    }
}

