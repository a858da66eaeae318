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

/// The settings mimalloc reads from the environment once, as the process starts, and the
/// language server's values for them:
/// - `MIMALLOC_PURGE_DELAY`: how many milliseconds a freed page waits before it is handed
///   back to the system (default 10). mimalloc hands a waiting page back only when its thread
///   allocates or frees again, and the server's first check frees a fifth of its peak, much
///   of it on threads that have ended, then waits for the editor: the pages stayed resident
///   for as long as the server ran (101 MB after opening the 10,000-file tree, 80 MB with the
///   delay 0: docs/benchmarks.md).
/// - `MIMALLOC_ABANDONED_RECLAIM_ON_FREE`: whether a thread that frees a block in the memory
///   of a thread that has ended takes that memory over (default no). A check's workers are
///   threads of their own, which end with it; what they made and the check freed later was
///   otherwise left in their memory, out of reach of the purge (5 MB of the 10,000-file tree's
///   first check: 72.5-73.0 MB resident, 67.5 MB with it; keystrokes as fast).
const SERVER_ALLOCATOR: [(&str, &str); 2] = [
    ("MIMALLOC_PURGE_DELAY", "0"),
    ("MIMALLOC_ABANDONED_RECLAIM_ON_FREE", "1"),
];

/// Runs this command again, in this process, with each of [`SERVER_ALLOCATOR`]'s settings
/// that is not set (by the user, or by this restart): a user's own value is kept. The
/// settings can only be made before mimalloc starts, and mimalloc's own call to change them
/// is outside safe Rust; the commands that exit after one run keep mimalloc's defaults, which
/// save them the calls to the system. Nothing has been read from stdin yet, and `exec` keeps
/// the process, its stdio and its arguments: the editor sees one server. A restart that fails
/// leaves this one running as it is.
fn restart_returning_freed_memory() {
    let unset: Vec<(&str, &str)> = SERVER_ALLOCATOR
        .into_iter()
        .filter(|(name, _)| std::env::var_os(name).is_none())
        .collect();
    if unset.is_empty() {
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
        let error = command.args(arguments).envs(unset).exec();
        eprintln!("pbc lsp: runs on without handing freed memory back at once: {error}");
    }
}
