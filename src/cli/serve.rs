//! `pbc serve`: the socket made, the server's options from the flags, and its log on stderr;
//! the protocol and the models are [`puppet_bindings::inject::serve`]'s.

use super::args::ServeArgs;
use puppet_bindings::Options;
use std::process::ExitCode;

/// `pbc serve`: the socket made (a stale one from a server that died is replaced, a live one
/// is not), then connections served until the process is killed.
pub(crate) fn serve_command(args: &ServeArgs, options: &Options) -> ExitCode {
    use puppet_bindings::inject::serve::{serve, ServeOptions};
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    use std::os::unix::net::{UnixListener, UnixStream};
    let mut roots = Vec::new();
    for dir in &args.models {
        match std::fs::canonicalize(dir) {
            Ok(root) if root.is_dir() => roots.push(root),
            Ok(_) => {
                eprintln!("pbc: --models `{}` is not a directory", dir.display());
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("pbc: --models `{}`: {e}", dir.display());
                return ExitCode::from(2);
            }
        }
    }
    if let Ok(meta) = std::fs::symlink_metadata(&args.socket) {
        if !meta.file_type().is_socket() {
            eprintln!(
                "pbc: `{}` exists and is not a socket: give another --socket",
                args.socket.display()
            );
            return ExitCode::from(2);
        }
        if UnixStream::connect(&args.socket).is_ok() {
            eprintln!("pbc: another server listens on `{}`", args.socket.display());
            return ExitCode::from(2);
        }
        // Nobody listens: a server that ended without removing it.
        if let Err(e) = std::fs::remove_file(&args.socket) {
            eprintln!(
                "pbc: cannot replace the stale socket `{}`: {e}",
                args.socket.display()
            );
            return ExitCode::from(2);
        }
    }
    let listener = match UnixListener::bind(&args.socket) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pbc: cannot listen on `{}`: {e}", args.socket.display());
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::set_permissions(&args.socket, std::fs::Permissions::from_mode(0o660)) {
        eprintln!(
            "pbc: cannot set the permissions of `{}`: {e}",
            args.socket.display()
        );
        return ExitCode::from(2);
    }
    let opts = ServeOptions {
        roots,
        idle: std::time::Duration::from_secs(args.idle.max(1)),
        model_idle: std::time::Duration::from_secs(args.model_idle.max(1)),
        max_connections: args.max_connections.max(1),
        options: options.clone(),
    };
    eprintln!(
        "pbc serve: listening on {} (models under {})",
        args.socket.display(),
        opts.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let log = |event: puppet_bindings::inject::serve::Event| eprintln!("pbc serve: {event}");
    match serve(&listener, &opts, &log) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pbc: serving on `{}` failed: {e}", args.socket.display());
            ExitCode::from(2)
        }
    }
}
