//! The `pbc` binary: the allocator, the panic message, and the thread with the large stack that
//! runs the command [`cli`] reads from the arguments. Exit status: 0 clean, 1 errors found, 2
//! usage or I/O problems, 101 a bug in pbc.

mod cli;

use std::process::ExitCode;

/// pbc allocates a node, a binding or a model entry at a time on every core; mimalloc does that
/// in about 15% less time than the system's allocator (README, Dependencies).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match cli::arguments() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // A panic is a bug in pbc, never the input's fault: say so, with what to report, and exit
    // 101 as a Rust panic does (2 is for usage and I/O problems).
    std::panic::set_hook(Box::new(|info| {
        eprintln!(
            "pbc {}: internal error: {info}\npbc: this is a bug in pbc; please report it with the input that caused it",
            env!("CARGO_PKG_VERSION")
        );
    }));
    // Passes over the tree recurse to a bounded depth; a large stack keeps debug builds safe.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || cli::run(cli));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            eprintln!("pbc: cannot start: {e}");
            ExitCode::from(2)
        }
    }
}
