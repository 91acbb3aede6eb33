//! Independent jobs (links, pairs) spread over the machine's cores, their
//! results returned in the jobs' order, so the output does not depend on which
//! worker finished first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Workers at most, whatever the machine has.
const MAX_WORKERS: usize = 8;

/// A worker's stack: the bash evaluator and the engines recurse as deep on a
/// worker as on the main thread (whose stack is 8 MiB), with room to spare.
const WORKER_STACK: usize = 64 << 20;

/// The workers a run uses: the cores the process may use, at most
/// [`MAX_WORKERS`], and 1 when `RECIPE_DRIFT_JOBS=1` asks for one.
pub fn workers() -> usize {
    if let Some(n) = std::env::var("RECIPE_DRIFT_JOBS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n >= 1)
    {
        return n.min(MAX_WORKERS);
    }
    std::thread::available_parallelism()
        .map(std::num::NonZeroUsize::get)
        .unwrap_or(1)
        .min(MAX_WORKERS)
}

/// `f` applied to every item on up to [`workers`] threads, each result
/// handed to `consume` on the calling thread in the items' order, as soon as
/// it and every result before it are done. Workers run at most four items
/// per worker past the last result consumed, so only a few results wait at
/// any time (a run's memory does not grow with its items). A panic in `f`
/// or in `consume` is raised again on the calling thread.
pub fn each_in_order<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(R),
) {
    let n = workers().min(items.len());
    if n <= 1 {
        for item in items {
            consume(f(item));
        }
        return;
    }
    let ahead = n * 4;
    let state = Mutex::new(Ordered {
        ready: std::collections::BTreeMap::new(),
        consumed: 0,
        failed: false,
    });
    let changed = Condvar::new();
    let next = AtomicUsize::new(0);
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for _ in 0..n {
            let spawned = std::thread::Builder::new()
                .name("recipe-drift-worker".into())
                .stack_size(WORKER_STACK)
                .spawn_scoped(s, || {
                    // A panic in `f` stops the run instead of leaving the
                    // calling thread waiting for its result.
                    let _fail = FailOnPanic(&state, &changed);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        {
                            let mut st = lock();
                            while i >= st.consumed + ahead && !st.failed {
                                st = changed.wait(st).unwrap_or_else(|e| e.into_inner());
                            }
                            if st.failed {
                                break;
                            }
                        }
                        let r = f(item);
                        lock().ready.insert(i, r);
                        changed.notify_all();
                    }
                });
            if let Ok(h) = spawned {
                handles.push(h);
            }
        }
        // No thread to be had: the calling thread does every item.
        if handles.is_empty() {
            for item in items {
                consume(f(item));
            }
            return;
        }
        {
            let _fail = FailOnPanic(&state, &changed);
            for k in 0..items.len() {
                let r = {
                    let mut st = lock();
                    loop {
                        if let Some(r) = st.ready.remove(&k) {
                            st.consumed = k + 1;
                            break Some(r);
                        }
                        if st.failed {
                            break None;
                        }
                        st = changed.wait(st).unwrap_or_else(|e| e.into_inner());
                    }
                };
                changed.notify_all();
                match r {
                    Some(r) => consume(r),
                    None => break,
                }
            }
        }
        for h in handles {
            if let Err(p) = h.join() {
                std::panic::resume_unwind(p);
            }
        }
    });
}

/// The results of [`each_in_order`] not consumed yet, by item index.
struct Ordered<R> {
    ready: std::collections::BTreeMap<usize, R>,
    consumed: usize,
    failed: bool,
}

/// Marks an ordered run failed when the thread holding it unwinds, and wakes
/// every thread waiting on it.
struct FailOnPanic<'a, R>(&'a Mutex<Ordered<R>>, &'a Condvar);

impl<R> Drop for FailOnPanic<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).failed = true;
            self.1.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_in_order_consumes_in_the_items_order() {
        let items: Vec<u64> = (0..500).collect();
        let mut out = Vec::new();
        super::each_in_order(
            &items,
            |&i| {
                (0..(i % 7) * 1000).fold(i, |a, b| a.wrapping_add(b))
                    - (0..(i % 7) * 1000).sum::<u64>()
            },
            |r| out.push(r),
        );
        assert_eq!(out, items);
    }

    #[test]
    fn a_panic_in_a_job_or_in_consume_is_raised_not_a_hang() {
        let items: Vec<u64> = (0..200).collect();
        let job = std::panic::catch_unwind(|| {
            super::each_in_order(&items, |&i| assert!(i != 50, "job 50"), |_| ())
        });
        assert!(job.is_err());
        let consumer = std::panic::catch_unwind(|| {
            let mut seen = 0;
            super::each_in_order(
                &items,
                |&i| i,
                |_| {
                    seen += 1;
                    assert!(seen < 10, "consumer");
                },
            )
        });
        assert!(consumer.is_err());
    }

    #[test]
    fn no_items_no_results() {
        let mut out: Vec<u8> = Vec::new();
        super::each_in_order(&[] as &[u8], |_| 0, |r| out.push(r));
        assert!(out.is_empty());
    }
}
