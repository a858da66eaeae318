//! Whether what a command built is freed piece by piece or left to the operating system.
//!
//! A large tree's programs and models are millions of small allocations: freeing them one by
//! one took a tenth of `pbc compile` on a 10,000-file tree, while the system takes a process's
//! memory back at exit in one step (compilers do the same: clang's driver passes
//! `-disable-free`). The `pbc` binary, which exits after its one command, says so in its
//! [`Options::exits_after_command`]; [`release`] then leaves a value to the exit. Anything else
//! that uses the library (tests, a long-lived caller) frees as usual.
//!
//! It must only be given values that would be freed just before the command's output is
//! written, so that the peak of memory does not change; values dropped while the command
//! still builds others are freed, so their memory is used again.

use crate::options::Options;

/// Frees `value`, or leaves it to the process's exit when the caller exits after this command
/// ([`Options::exits_after_command`]; see the module's documentation).
pub fn release<T>(value: T, options: &Options) {
    if options.exits_after_command {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// [`release`] for a tree's model: left to the exit, or else its blocks freed on every core
/// ([`free_in_parallel`]).
pub fn release_tree<X: Send + Sync>(
    model: crate::lower::model::TreeDocument<X>,
    options: &Options,
) {
    if options.exits_after_command {
        std::mem::forget(model);
    } else {
        free_tree_in_parallel(model);
    }
}

/// Frees a tree's model, its blocks on every core ([`free_in_parallel`]): they are nearly all
/// of it.
pub fn free_tree_in_parallel<X: Send + Sync>(model: crate::lower::model::TreeDocument<X>) {
    free_in_parallel(
        model
            .layers
            .layers
            .into_iter()
            .flat_map(|layer| layer.bindings)
            .collect(),
    );
}

/// Frees `items` on every core, for a large value that is freed while the command goes on
/// (its memory is wanted again): freeing millions of small allocations is otherwise a pause
/// on one core.
pub fn free_in_parallel<T: Send>(mut items: Vec<T>) {
    // Fewer are freed sooner than a thread starts.
    const WORTH_A_THREAD: usize = 1024;
    let workers = crate::parallel::cores().min(items.len() / WORTH_A_THREAD);
    if workers <= 1 {
        return drop(items);
    }
    let share = items.len().div_ceil(workers);
    std::thread::scope(|scope| {
        while items.len() > share {
            let tail = items.split_off(items.len() - share);
            // Values nest as deep as the parser allows, and are freed recursively: the
            // workers get the room the parsing threads get. A thread that cannot start frees
            // its share here, as the closure is dropped.
            let _ = std::thread::Builder::new()
                .stack_size(crate::parallel::WORKER_STACK)
                .spawn_scoped(scope, move || drop(tail));
        }
        drop(items);
    });
}
