//! Independent jobs (links, pairs) spread over the machine's cores, their
//! results returned in the jobs' order, so the output does not depend on which
//! worker finished first.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// `f` applied to every item, on up to [`workers`] threads; the results in
/// the items' order. One item (or one worker) runs on the calling thread.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = workers().min(items.len());
    if n <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                std::thread::Builder::new()
                    .name("recipe-drift-worker".into())
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, || {
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(i) else { break };
                            let r = f(item);
                            *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                        }
                    })
            })
            .collect();
        for h in handles {
            match h {
                // A worker that panicked re-raises its panic here, as the
                // job would have on the calling thread.
                Ok(h) => {
                    if let Err(p) = h.join() {
                        std::panic::resume_unwind(p);
                    }
                }
                // No thread to be had: the calling thread does the rest.
                Err(_) => loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                },
            }
        }
    });
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..500).collect();
        let out = super::map(&items, |&i| {
            // Uneven work, so workers finish out of order.
            (0..(i % 7) * 1000).fold(i, |a, b| a.wrapping_add(b)) - (0..(i % 7) * 1000).sum::<u64>()
        });
        assert_eq!(out, items);
    }

    #[test]
    fn no_items_no_results() {
        let out: Vec<u8> = super::map(&[] as &[u8], |_| 0);
        assert!(out.is_empty());
    }
}
