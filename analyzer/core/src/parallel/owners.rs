//! Which engine owns each flow when `-j N` walks byte ranges (`ranges.rs`).
//!
//! A 4-tuple seen for the first time goes to the engine that was given the fewest
//! segments so far, and stays there (port reuse included): list scheduling, as flow
//! sizes are not known in advance. A hash of the 4-tuple split the segments of bulk-5m
//! (120 flows) 58/42 % and of bulk-1m (24 flows) 70/30 %, and the engine with the larger
//! share set the pace. Results do not depend on the split: each 4-tuple's segments still
//! reach one engine in capture order.
//!
//! Any engine may decode any range, so the choice is made once, under a lock, by
//! whichever decoder meets the 4-tuple first; each decoder keeps the answers it has
//! seen, and its count of segments given since it last took the lock.

use std::sync::Mutex;

use ahash::AHashMap;

use crate::flow::FlowKey;

/// Answers a decoder keeps before it starts over (bounds memory on captures with
/// millions of flows; forgotten ones are asked again).
const CACHE_MAX: usize = 1 << 16;

pub(super) struct Owners {
    engines: usize,
    chosen: Mutex<Chosen>,
}

#[derive(Default)]
struct Chosen {
    by_key: AHashMap<FlowKey, u32>,
    /// Segments given to each engine, as far as decoders have reported them.
    given: Vec<u64>,
}

/// A decoder's copy of the answers it has seen.
pub(super) struct OwnerCache {
    /// The last answer: segments of one flow often come in runs.
    last: Option<(FlowKey, u32)>,
    known: AHashMap<FlowKey, u32>,
    /// Segments given to each engine, not yet added to [`Chosen::given`].
    pending: Vec<u64>,
}

impl OwnerCache {
    pub fn new(engines: usize) -> OwnerCache {
        OwnerCache { last: None, known: AHashMap::new(), pending: vec![0; engines] }
    }
}

impl Owners {
    pub fn new(engines: usize) -> Owners {
        Owners { engines, chosen: Mutex::new(Chosen { by_key: AHashMap::new(), given: vec![0; engines] }) }
    }

    /// The engine that owns the flow of a segment with `key`.
    #[inline]
    pub fn of(&self, key: FlowKey, cache: &mut OwnerCache) -> usize {
        let w = match cache.last {
            Some((k, w)) if k == key => w,
            _ => {
                let w = match cache.known.get(&key) {
                    Some(&w) => w,
                    None => self.ask(key, cache),
                };
                cache.last = Some((key, w));
                w
            }
        };
        cache.pending[w as usize] += 1;
        w as usize
    }

    /// Adds the segments a decoder has given since it last reported them.
    pub fn report(&self, cache: &mut OwnerCache) {
        let mut c = self.chosen.lock().unwrap_or_else(|p| p.into_inner());
        Self::add_pending(&mut c, cache);
    }

    fn add_pending(c: &mut Chosen, cache: &mut OwnerCache) {
        for (g, p) in c.given.iter_mut().zip(cache.pending.iter_mut()) {
            *g += std::mem::take(p);
        }
    }

    #[cold]
    fn ask(&self, key: FlowKey, cache: &mut OwnerCache) -> u32 {
        let w = {
            let mut c = self.chosen.lock().unwrap_or_else(|p| p.into_inner());
            Self::add_pending(&mut c, cache);
            let given = &c.given;
            let fewest = (0..self.engines).min_by_key(|&w| given[w]).unwrap_or(0) as u32;
            *c.by_key.entry(key).or_insert(fewest)
        };
        if cache.known.len() >= CACHE_MAX {
            cache.known.clear();
        }
        cache.known.insert(key, w);
        w
    }
}
