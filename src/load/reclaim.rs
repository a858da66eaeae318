//! Whether what a command built is freed piece by piece or left to the operating system.
//!
//! A large tree's programs and models are millions of small allocations: freeing them one by
//! one took a tenth of `pbc compile` on a 10,000-file tree, while the system takes a process's
//! memory back at exit in one step (compilers do the same: clang's driver passes
//! `-disable-free`). The `pbc` binary, which exits after its one command, says so with
//! [`exits_after_command`]; [`release`] then leaves a value to the exit. Anything else that
//! uses the library (tests, a long-lived caller) frees as usual.
//!
//! It must only be given values that would be freed just before the command's output is
//! written, so that the peak of memory does not change; values dropped while the command
//! still builds others are freed, so their memory is used again.

use std::sync::atomic::{AtomicBool, Ordering};

static EXITS_AFTER_COMMAND: AtomicBool = AtomicBool::new(false);

/// Called by a program that exits after one command: [`release`] need not free.
pub fn exits_after_command() {
    EXITS_AFTER_COMMAND.store(true, Ordering::Relaxed);
}

/// Frees `value`, or leaves it to the process's exit (see the module's documentation).
pub fn release<T>(value: T) {
    if EXITS_AFTER_COMMAND.load(Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}
