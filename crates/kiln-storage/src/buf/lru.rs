//! The LRU list of one buffer-pool instance, with InnoDB's midpoint insertion.
//!
//! ```text
//!   head (most recently used)                                   tail (evicted first)
//!   [young ......................][old .................................]
//!                                 ^ mid: new pages enter here
//! ```
//!
//! A page read from disk enters at the head of the old sublist. It moves to the young
//! head only when touched again at least `old_blocks_time_ms` after its first access,
//! so a one-time scan streams through the old sublist without displacing the hot
//! (young) set. The old sublist is kept at `old_pct` percent of the list.
//!
//! The list is intrusive over frame indexes (`prev`/`next` arrays), so every
//! operation is O(1) apart from rebalancing the midpoint, which moves it by the few
//! entries an insertion or removal shifted.

const NIL: u32 = u32::MAX;

pub struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    old: Vec<bool>,
    linked: Vec<bool>,
    head: u32,
    tail: u32,
    /// First entry of the old sublist (NIL when the old sublist is empty).
    mid: u32,
    len: usize,
    old_len: usize,
    old_pct: usize,
}

impl Lru {
    pub fn new(frames: usize, old_pct: usize) -> Lru {
        assert!(
            (5..=95).contains(&old_pct),
            "innodb_old_blocks_pct is 5..95"
        );
        Lru {
            prev: vec![NIL; frames],
            next: vec![NIL; frames],
            old: vec![false; frames],
            linked: vec![false; frames],
            head: NIL,
            tail: NIL,
            mid: NIL,
            len: 0,
            old_len: 0,
            old_pct,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_old(&self, f: u32) -> bool {
        self.old[f as usize]
    }

    pub fn contains(&self, f: u32) -> bool {
        self.linked[f as usize]
    }

    fn link_before(&mut self, f: u32, at: u32) {
        let fi = f as usize;
        debug_assert!(!self.linked[fi]);
        self.linked[fi] = true;
        self.len += 1;
        if at == NIL {
            // Append at the tail.
            self.prev[fi] = self.tail;
            self.next[fi] = NIL;
            if self.tail != NIL {
                self.next[self.tail as usize] = f;
            } else {
                self.head = f;
            }
            self.tail = f;
            return;
        }
        let p = self.prev[at as usize];
        self.prev[fi] = p;
        self.next[fi] = at;
        self.prev[at as usize] = f;
        if p != NIL {
            self.next[p as usize] = f;
        } else {
            self.head = f;
        }
    }

    /// Removes `f` from the list.
    pub fn remove(&mut self, f: u32) {
        let fi = f as usize;
        assert!(self.linked[fi], "frame {f} is not in the LRU list");
        if self.mid == f {
            self.mid = self.next[fi];
        }
        if self.old[fi] {
            self.old_len -= 1;
            self.old[fi] = false;
        }
        let (p, n) = (self.prev[fi], self.next[fi]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail = p;
        }
        self.prev[fi] = NIL;
        self.next[fi] = NIL;
        self.linked[fi] = false;
        self.len -= 1;
        self.rebalance();
    }

    /// A page just read in: head of the old sublist.
    pub fn insert_old(&mut self, f: u32) {
        self.link_before(f, self.mid);
        self.old[f as usize] = true;
        self.old_len += 1;
        self.mid = f;
        self.rebalance();
    }

    /// A page accessed again after `old_blocks_time`: head of the young sublist.
    pub fn make_young(&mut self, f: u32) {
        self.remove(f);
        self.link_before(f, self.head);
        self.rebalance();
    }

    /// Keeps the old sublist at `old_pct` percent of the list.
    fn rebalance(&mut self) {
        let target = self.len * self.old_pct / 100;
        while self.old_len < target {
            let m = if self.mid == NIL {
                self.tail
            } else {
                self.prev[self.mid as usize]
            };
            if m == NIL {
                break;
            }
            self.mid = m;
            self.old[m as usize] = true;
            self.old_len += 1;
        }
        while self.old_len > target.max(1) && self.mid != NIL {
            let m = self.mid;
            self.old[m as usize] = false;
            self.old_len -= 1;
            self.mid = self.next[m as usize];
        }
    }

    /// Frames from the tail (least recently used) toward the head.
    pub fn iter_from_tail(&self) -> impl Iterator<Item = u32> + '_ {
        let mut cur = self.tail;
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let f = cur;
            cur = self.prev[f as usize];
            Some(f)
        })
    }

    /// Checks the list's invariants (tests and debug builds).
    pub fn check(&self) {
        let mut n = 0;
        let mut old = 0;
        let mut seen_old = false;
        let mut cur = self.head;
        let mut prev = NIL;
        while cur != NIL {
            assert_eq!(self.prev[cur as usize], prev);
            if cur == self.mid {
                seen_old = true;
            }
            assert_eq!(
                self.old[cur as usize], seen_old,
                "old flag matches position"
            );
            old += self.old[cur as usize] as usize;
            n += 1;
            prev = cur;
            cur = self.next[cur as usize];
        }
        assert_eq!(self.tail, prev);
        assert_eq!((n, old), (self.len, self.old_len));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoint_keeps_the_young_sublist_through_a_scan() {
        // 100 frames; frames 0..100 hold hot pages, all made young.
        let mut l = Lru::new(1100, 37);
        for f in 0..100 {
            l.insert_old(f);
            l.make_young(f);
        }
        l.check();
        let young: Vec<u32> = (0..100).filter(|f| !l.is_old(*f)).collect();
        assert_eq!(young.len(), 63, "old sublist is 37% of the list");
        // A scan of 1000 pages through a pool of 100: each enters at the midpoint and
        // the tail is evicted.
        for f in 100..1100 {
            let victim = l.iter_from_tail().next().unwrap();
            l.remove(victim);
            l.insert_old(f);
        }
        l.check();
        for f in &young {
            assert!(l.contains(*f), "hot page {f} survived the scan");
        }
        for f in (0..1100)
            .filter(|f| l.contains(*f))
            .step_by(3)
            .collect::<Vec<_>>()
        {
            l.remove(f);
            l.check();
        }
    }
}
