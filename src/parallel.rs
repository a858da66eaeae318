//! Work spread over the machine's cores: parsing a tree's files, walking its modules,
//! answering many nodes. It owns only the sharing out; the result never depends on it (results
//! come back in input order), so output stays byte-identical on any number of cores.
//!
//! It must not know what the work is: callers hand over plain closures, and whatever a closure
//! records on its thread (see [`crate::source::recorded`]) the caller takes back itself.

/// The stack of a worker thread: passes recurse to the parser's bounded depth, so workers get
/// the main thread's room.
pub const WORKER_STACK: usize = 64 * 1024 * 1024;

/// `f(i)` for every `i < n`, in order, spread over the available cores; the result does not
/// depend on how the work was shared out.
pub fn parallel_map<R: Send>(n: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .min(n.max(1));
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        let result = f(i);
        if let Ok(mut s) = slots.lock() {
            s[i] = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..workers {
            let _ = std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, work);
        }
        work();
    });
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, slot)| slot.unwrap_or_else(|| f(i)))
        .collect()
}
