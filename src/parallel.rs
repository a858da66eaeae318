//! Work spread over the machine's cores: parsing a tree's files, walking its modules,
//! answering many nodes. It owns only the sharing out; the result never depends on it (results
//! come back in input order), so output stays byte-identical on any number of cores.
//!
//! It must not know what the work is: callers hand over plain closures, and whatever a closure
//! records on its thread (see [`crate::source::recorded`]) the caller takes back itself.

/// The stack of a worker thread: passes recurse to the parser's bounded depth, so workers get
/// the main thread's room.
pub const WORKER_STACK: usize = 64 * 1024 * 1024;

/// How many cores the process may use, asked once: the system's answer reads the control
/// group's files each time it is asked, and the language server shares work out many times at
/// each keystroke.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let all = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |c| c.get()));
    if ON_ONE_CORE.get() {
        1
    } else {
        all
    }
}

std::thread_local! {
    /// Work shared out from this thread stays on it ([`on_one_core`]).
    static ON_ONE_CORE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f`, with every piece of work it shares out done on one core at a time: for work in the
/// background (the language server's look at the disk behind a check) that must leave the
/// other cores to what the user waits for. Threads the work starts are held to it too.
pub fn on_one_core<R>(f: impl FnOnce() -> R) -> R {
    let before = ON_ONE_CORE.replace(true);
    let result = f();
    ON_ONE_CORE.set(before);
    result
}

/// `work`, run on a thread the current one started, under the current one's limit
/// ([`on_one_core`]).
fn as_starter<R>(work: impl FnOnce() -> R) -> impl FnOnce() -> R {
    let one_core = ON_ONE_CORE.get();
    move || {
        ON_ONE_CORE.set(one_core);
        work()
    }
}

/// `f(i)` for every `i < n`, in order, spread over the available cores; the result does not
/// depend on how the work was shared out.
///
/// Each core claims a run of items at a time, an eighth of what is left per core and at most
/// [`MOST_CLAIMED`]: cheap items (a kept file taken by its path, 10,000 of them in a tree) are
/// claimed many at once instead of the cores taking turns on one counter for each, and the last
/// items one by one, so that no core is left with a long run while another idles. Each result
/// goes to a slot of its own, without a lock over all of them.
pub fn parallel_map<R: Send>(n: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = cores().min(n.max(1));
    let next = AtomicUsize::new(0);
    // A lock per slot (`R` need only be `Send`), each taken once, by one core.
    let slots: Vec<std::sync::Mutex<Option<R>>> =
        (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    let claim = || {
        let mut at = next.load(Ordering::Relaxed);
        loop {
            if at >= n {
                return None;
            }
            let run = ((n - at) / (workers * 8)).clamp(1, MOST_CLAIMED);
            match next.compare_exchange_weak(at, at + run, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(at..at + run),
                Err(now) => at = now,
            }
        }
    };
    let work = || {
        while let Some(run) = claim() {
            for i in run {
                let result = f(i);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(result);
                }
            }
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
        .into_iter()
        .enumerate()
        .map(|(i, slot)| slot.into_inner().ok().flatten().unwrap_or_else(|| f(i)))
        .collect()
}

/// The most items [`parallel_map`] claims at once.
const MOST_CLAIMED: usize = 64;

/// `work` for each item `produce` gives, on every core, starting while `produce` is still
/// giving them (a directory walk whose files are parsed as they are found: no core waits for
/// the walk to end). Results come back in the order the items were given. `produce` runs on
/// this thread, which then helps with what is left.
pub fn parallel_as_found<T: Send, R: Send>(
    produce: impl FnOnce(&mut dyn FnMut(T)),
    work: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    use std::collections::VecDeque;
    use std::sync::{Condvar, Mutex};
    struct Queue<T> {
        waiting: VecDeque<(usize, T)>,
        /// Whether `produce` is done: an empty queue then means the work is done.
        closed: bool,
    }
    let workers = cores();
    let queue = Mutex::new(Queue {
        waiting: VecDeque::new(),
        closed: false,
    });
    let ready = Condvar::new();
    let results: Mutex<Vec<Option<R>>> = Mutex::new(Vec::new());
    // Takes items until the queue is closed and empty; `wait`: whether to wait for more.
    let take_items = |wait: bool| loop {
        let next = {
            let Ok(mut q) = queue.lock() else { return };
            loop {
                if let Some(item) = q.waiting.pop_front() {
                    break Some(item);
                }
                if q.closed || !wait {
                    break None;
                }
                q = match ready.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        let Some((at, item)) = next else { return };
        let result = work(item);
        if let Ok(mut r) = results.lock() {
            if r.len() <= at {
                r.resize_with(at + 1, || None);
            }
            r[at] = Some(result);
        }
    };
    let mut given = 0;
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let _ = std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, as_starter(|| take_items(true)));
        }
        produce(&mut |item| {
            if let Ok(mut q) = queue.lock() {
                q.waiting.push_back((given, item));
                given += 1;
            }
            ready.notify_one();
        });
        if let Ok(mut q) = queue.lock() {
            q.closed = true;
        }
        ready.notify_all();
        // Also when no worker could start.
        take_items(false);
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.resize_with(given, || None);
    // Every item given was worked on: a thread that stopped short panicked, and the scope has
    // passed that on. A result left out would move every later one to the wrong item.
    results
        .into_iter()
        .map(|r| r.expect("every item given has its result"))
        .collect()
}

/// How many results each worker of [`parallel_in_order`] may have made ahead of their taker.
const AHEAD: usize = 2;

/// `f(i)` for every `i < n`, made on the available cores a little ahead of `take`, which is
/// given them in order on this thread: for output too large to hold whole (a model's text),
/// made in parallel and written in order. Each worker holds at most [`AHEAD`] results that
/// are not taken yet. An error from `take` stops the work and is returned.
pub fn parallel_in_order<R: Send, E>(
    n: usize,
    f: impl Fn(usize) -> R + Sync,
    mut take: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    let workers = cores().min(n);
    if workers <= 1 {
        for i in 0..n {
            take(f(i))?;
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        // Worker `w` makes results `w`, `w + workers`, ... in turn, so that this thread takes
        // them from the workers in turn.
        let made: Vec<Option<std::sync::mpsc::Receiver<R>>> = (0..workers)
            .map(|w| {
                let (made, taken) = std::sync::mpsc::sync_channel(AHEAD);
                let f = &f;
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, move || {
                        for i in (w..n).step_by(workers) {
                            // The taker stopped (an error): so does the worker.
                            if made.send(f(i)).is_err() {
                                break;
                            }
                        }
                    })
                    .ok()
                    .map(|_| taken)
            })
            .collect();
        for i in 0..n {
            // A worker that could not start, or stopped (a panic, which the scope passes
            // on), leaves its results to this thread.
            let result = match made[i % workers].as_ref().map(|r| r.recv()) {
                Some(Ok(result)) => result,
                _ => f(i),
            };
            take(result)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work held to one core shares nothing out, also from the threads it starts, and the
    /// limit ends with it.
    #[test]
    fn work_held_to_one_core_stays_there_in_the_threads_it_starts() {
        let all = cores();
        let seen = on_one_core(|| {
            parallel_as_found(
                |give| {
                    for i in 0..8 {
                        give(i);
                    }
                },
                |_| (cores(), parallel_map(4, |_| cores())),
            )
        });
        assert_eq!(seen, vec![(1, vec![1; 4]); 8]);
        assert_eq!(cores(), all);
    }

    #[test]
    fn results_as_found_come_in_the_order_given() {
        for n in [0, 1, 2, 3, 17, 1000] {
            let squares = parallel_as_found(
                |give| {
                    for i in 0..n {
                        // Items come slower than they are worked on now and then.
                        if i % 97 == 0 {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                        give(i);
                    }
                },
                |i: usize| i * i,
            );
            assert_eq!(squares, (0..n).map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn mapped_results_come_in_order_each_made_once() {
        for n in [0, 1, 2, 3, 17, 63, 64, 65, 1000, 10_000] {
            let made = std::sync::atomic::AtomicUsize::new(0);
            let squares = parallel_map(n, |i| {
                made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // Some items take longer than others.
                if i % 251 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                i * i
            });
            assert_eq!(squares, (0..n).map(|i| i * i).collect::<Vec<_>>(), "{n}");
            assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), n, "{n}");
        }
    }

    #[test]
    fn results_are_taken_in_order() {
        for n in [0, 1, 2, 3, 17, 1000] {
            let mut taken = Vec::new();
            let done: Result<(), ()> = parallel_in_order(
                n,
                |i| i * i,
                |r| {
                    taken.push(r);
                    Ok(())
                },
            );
            assert!(done.is_ok());
            assert_eq!(taken, (0..n).map(|i| i * i).collect::<Vec<_>>(), "{n}");
        }
    }

    #[test]
    fn an_error_stops_the_work() {
        let made = std::sync::atomic::AtomicUsize::new(0);
        let mut taken = 0;
        let done = parallel_in_order(
            10_000,
            |i| {
                made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                i
            },
            |i| {
                taken += 1;
                if i == 5 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(done, Err("stop"));
        assert_eq!(taken, 6);
        // Each worker stops at its next result: only a few are made past the error.
        assert!(made.load(std::sync::atomic::Ordering::Relaxed) < 100);
    }
}
