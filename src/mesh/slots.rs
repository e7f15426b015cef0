//! Counted places, in total and per peer address. Connections have `Slots`: when full, a
//! newcomer is refused. TLS handshakes in progress and sockets that have not sent their first
//! message have `Evicting` places: when full, a newcomer ends the oldest instead (a real client
//! needs milliseconds there, so what is evicted is what has waited longest, and a flood of silent
//! connections cannot keep a real client out, even from the same address). A `Slot` or an
//! `Evictable` gives its place back when dropped, however its task ends.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

pub struct Slots {
    total: usize,
    per_address: usize,
    taken: Mutex<Taken>,
}

#[derive(Default)]
struct Taken {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// Why no slot was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// Every slot is taken.
    Total,
    /// This address holds as many as one address may.
    Address,
}

impl Slots {
    pub fn new(total: usize, per_address: usize) -> Arc<Slots> {
        Arc::new(Slots {
            total,
            per_address,
            taken: Mutex::default(),
        })
    }

    pub fn take(self: &Arc<Slots>, ip: IpAddr) -> Result<Slot, Full> {
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        let mine = taken.by_address.get(&ip).copied().unwrap_or(0);
        if mine >= self.per_address {
            return Err(Full::Address);
        }
        if taken.total >= self.total {
            return Err(Full::Total);
        }
        taken.total += 1;
        taken.by_address.insert(ip, mine + 1);
        Ok(Slot {
            slots: self.clone(),
            ip,
        })
    }

    /// How many are taken now.
    pub fn taken(&self) -> usize {
        self.taken.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

pub struct Slot {
    slots: Arc<Slots>,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut taken = self.slots.taken.lock().unwrap_or_else(|p| p.into_inner());
        taken.total -= 1;
        if let Some(n) = taken.by_address.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                taken.by_address.remove(&self.ip);
            }
        }
    }
}

/// Places where a newcomer evicts the oldest holder (of its address when that address is full,
/// else of all when all are full).
pub struct Evicting {
    total: usize,
    per_address: usize,
    held: Mutex<VecDeque<(u64, IpAddr, CancellationToken)>>,
    next: std::sync::atomic::AtomicU64,
}

/// A held place; `evicted` fires when a newcomer took it.
pub struct Evictable {
    places: Arc<Evicting>,
    id: u64,
    pub evicted: CancellationToken,
}

impl Evicting {
    pub fn new(total: usize, per_address: usize) -> Arc<Evicting> {
        Arc::new(Evicting {
            total: total.max(1),
            per_address: per_address.max(1),
            held: Mutex::default(),
            next: std::sync::atomic::AtomicU64::new(1),
        })
    }

    pub fn take(self: &Arc<Evicting>, ip: IpAddr) -> Evictable {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let mine = held.iter().filter(|(_, a, _)| *a == ip).count();
        let oldest = if mine >= self.per_address {
            held.iter().position(|(_, a, _)| *a == ip)
        } else if held.len() >= self.total {
            Some(0)
        } else {
            None
        };
        if let Some((_, _, token)) = oldest.and_then(|i| held.remove(i)) {
            token.cancel();
        }
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let evicted = CancellationToken::new();
        held.push_back((id, ip, evicted.clone()));
        Evictable {
            places: self.clone(),
            id,
            evicted,
        }
    }

    /// How many are held now.
    pub fn held(&self) -> usize {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

impl Drop for Evictable {
    fn drop(&mut self) {
        let mut held = self.places.held.lock().unwrap_or_else(|p| p.into_inner());
        held.retain(|(id, _, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newcomer_evicts_the_oldest_of_its_address_then_of_all() {
        let places = Evicting::new(3, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let a1 = places.take(a);
        let a2 = places.take(a);
        let a3 = places.take(a);
        assert!(a1.evicted.is_cancelled() && !a2.evicted.is_cancelled());
        drop(a1);
        assert_eq!(places.held(), 2);
        let b1 = places.take(b);
        assert!(!a2.evicted.is_cancelled(), "room for b");
        let b2 = places.take(b);
        assert!(
            a2.evicted.is_cancelled(),
            "all full: the oldest of all goes"
        );
        assert!(!a3.evicted.is_cancelled() && !b1.evicted.is_cancelled());
        drop((a2, a3, b1, b2));
        assert_eq!(places.held(), 0);
    }

    #[test]
    fn limited_in_total_and_per_address_and_given_back_on_drop() {
        let slots = Slots::new(3, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let c: IpAddr = "10.0.0.3".parse().unwrap();
        let a1 = slots.take(a).unwrap();
        let _a2 = slots.take(a).unwrap();
        assert_eq!(slots.take(a).err(), Some(Full::Address));
        let _b1 = slots.take(b).unwrap();
        assert_eq!(slots.take(c).err(), Some(Full::Total));
        assert_eq!(slots.taken(), 3);
        drop(a1);
        assert_eq!(slots.taken(), 2);
        assert!(slots.take(c).is_ok());
    }
}
