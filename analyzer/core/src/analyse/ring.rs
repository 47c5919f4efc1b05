//! A FIFO of `Copy` values in a ring whose size is a power of two. The sender model keeps a
//! few per direction (timestamps awaiting their echo, state snapshots) and pushes to and
//! pops from them on most packets: here those are a mask and a store, and growing, rare,
//! is out of line. (`VecDeque` is general; its wrap-around and growth checks cost more.)

#[derive(Debug, Clone, Default)]
pub struct Ring<T> {
    buf: Vec<T>,
    head: usize,
    len: usize,
    /// The value pushed last.
    last: T,
}

impl<T: Copy + Default> Ring<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.buf.len() - 1)
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.buf[self.slot(i)])
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        self.get(self.len.wrapping_sub(1))
    }

    /// `back` without finding its slot: the value pushed (or put back) last, while any is kept.
    #[inline]
    pub fn newest(&self) -> Option<T> {
        (self.len > 0).then_some(self.last)
    }

    /// Replaces the newest value (none kept: does nothing).
    #[inline]
    pub fn replace_back(&mut self, v: T) {
        if let Some(n) = self.len.checked_sub(1) {
            let i = self.slot(n);
            self.buf[i] = v;
            self.last = v;
        }
    }

    /// Rewrites every value kept (rare: out of the per-packet path).
    pub fn update_all(&mut self, f: impl Fn(&mut T)) {
        for i in 0..self.len {
            let k = self.slot(i);
            f(&mut self.buf[k]);
        }
        if let Some(n) = self.len.checked_sub(1) {
            self.last = self.buf[self.slot(n)];
        }
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        let v = *self.front()?;
        self.head = self.slot(1);
        self.len -= 1;
        Some(v)
    }

    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.buf[i] = v;
        self.last = v;
        self.len += 1;
    }

    /// Doubles the ring (to 16 at first), oldest first from slot 0.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(16);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|i| self.buf[self.slot(i)]));
        buf.resize(cap, T::default());
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_deque() {
        let (mut r, mut d) = (Ring::default(), VecDeque::new());
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 5 {
                0 | 1 => {
                    r.push_back(i);
                    d.push_back(i);
                }
                2 => assert_eq!(r.pop_front(), d.pop_front()),
                3 => {
                    if let Some(b) = d.back_mut() {
                        *b += 1;
                        r.replace_back(*b);
                    }
                }
                _ => {}
            }
            assert_eq!((r.len(), r.front(), r.back(), r.get(1)), (d.len(), d.front(), d.back(), d.get(1)));
            assert_eq!(r.newest(), d.back().copied());
        }
    }
}
