//! The tally of engines that split the flows between them (`ranges.rs`): at every sweep
//! each adds its active flows, and the sum is the `open` count that
//! [`finalisable`](crate::analyse::finalisable) reads — the count of the whole capture.
//!
//! The sum decides only for flows that never carried data (a scan's), so an engine
//! without such a flow reports its count and goes on; one with such a flow waits for the
//! other engines to reach the same sweep. Waiting at every sweep (every quarter second of
//! capture time) tied the engines together: one held up by the system held up all.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

pub(super) struct Tally {
    engines: usize,
    state: Mutex<Rounds>,
    turned: Condvar,
}

#[derive(Default)]
struct Rounds {
    /// Sweeps not yet reported by every engine, or awaited still; the first is `first`.
    open: VecDeque<Round>,
    first: u64,
    /// Largest sum so far (the peak of active flows falls just before a sweep).
    peak: usize,
    /// An engine gave up: nobody waits any more.
    abandoned: bool,
}

#[derive(Default, Clone, Copy)]
struct Round {
    arrived: usize,
    sum: usize,
    /// Engines waiting to read the sum.
    waiting: usize,
}

impl Tally {
    pub fn new(engines: usize) -> Tally {
        Tally { engines, state: Mutex::new(Rounds::default()), turned: Condvar::new() }
    }

    /// Adds `mine` to sweep `round` (an engine's sweeps count from 0). With `wait`, returns
    /// the sum once every engine has added its count, running `meanwhile` until that has
    /// nothing left to do; without, or after [`abandon`](Tally::abandon), returns `mine`
    /// at once.
    pub fn add_up(&self, round: u64, mine: usize, wait: bool, meanwhile: &mut dyn FnMut() -> bool) -> usize {
        let mut r = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if r.abandoned {
            return mine;
        }
        let i = (round - r.first) as usize;
        if r.open.len() <= i {
            r.open.resize(i + 1, Round::default());
        }
        r.open[i].sum += mine;
        r.open[i].arrived += 1;
        if r.open[i].arrived == self.engines {
            r.peak = r.peak.max(r.open[i].sum);
            self.turned.notify_all();
        }
        if !wait {
            r.prune(self.engines);
            return mine;
        }
        r.open[i].waiting += 1;
        let mut busy = true;
        loop {
            let i = (round - r.first) as usize;
            if r.abandoned {
                return mine;
            }
            if r.open[i].arrived == self.engines {
                r.open[i].waiting -= 1;
                let sum = r.open[i].sum;
                r.prune(self.engines);
                return sum;
            }
            if busy {
                drop(r);
                busy = meanwhile();
                r = self.state.lock().unwrap_or_else(|p| p.into_inner());
            } else {
                r = self.turned.wait(r).unwrap_or_else(|p| p.into_inner());
            }
        }
    }

    /// Largest sum any sweep saw.
    pub fn peak(&self) -> usize {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).peak
    }

    /// Releases every waiter for good.
    pub fn abandon(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).abandoned = true;
        self.turned.notify_all();
    }
}

impl Rounds {
    /// Drops the first sweeps while every engine has reported them and nobody awaits them.
    fn prune(&mut self, engines: usize) {
        while self.open.front().is_some_and(|f| f.arrived == engines && f.waiting == 0) {
            self.open.pop_front();
            self.first += 1;
        }
    }
}

