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
    if cli::is_language_server(&cli) {
        restart_returning_freed_memory();
    }
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

/// The setting mimalloc reads from the environment once, as the process starts: how many
/// milliseconds a freed page waits before it is handed back to the system (default 10).
const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// Runs this command again, in this process, with [`PURGE_DELAY`] 0, unless the variable is
/// set (by the user, or by this restart). mimalloc hands a waiting page back only when its
/// thread allocates or frees again, and the language server's first check frees a fifth of
/// its peak, much of it on threads that have ended, then waits for the editor: the pages
/// stayed resident for as long as the server ran (101 MB after opening the 10,000-file tree,
/// 80 MB with the delay 0: docs/benchmarks.md). The setting can only be made before mimalloc
/// starts, and mimalloc's own call to change it is outside safe Rust; the commands that exit
/// after one run keep the delay, which saves them the calls to the system. Nothing has been
/// read from stdin yet, and `exec` keeps the process, its stdio and its arguments: the editor
/// sees one server. A restart that fails leaves this one running as it is.
fn restart_returning_freed_memory() {
    if std::env::var_os(PURGE_DELAY).is_some() {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let Ok(program) = std::env::current_exe() else {
            return;
        };
        let mut arguments = std::env::args_os();
        let mut command = std::process::Command::new(program);
        if let Some(name) = arguments.next() {
            command.arg0(name);
        }
        let error = command.args(arguments).env(PURGE_DELAY, "0").exec();
        eprintln!("pbc lsp: runs on without handing freed memory back at once: {error}");
    }
}
