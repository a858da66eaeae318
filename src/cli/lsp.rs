//! `pbc lsp`: the language server on stdin and stdout, its log on stderr; the protocol and the
//! answers are [`puppet_bindings::ide`]'s.

use puppet_bindings::ide::server::{run, Ended};
use puppet_bindings::ide::transport::Transport;
use puppet_bindings::Options;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn lsp_command(tree: Option<PathBuf>, options: &Options) -> ExitCode {
    let root = tree.unwrap_or_else(|| PathBuf::from("."));
    let (connection, transport) = Transport::start(
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout(),
        |why| eprintln!("pbc lsp: ignored a message: {why}"),
    );
    let ended = run(&connection, options.clone(), &root, &mut |line| {
        eprintln!("{line}")
    });
    // The writer ends once the server's side of the connection is gone.
    drop(connection);
    if let Err(e) = transport.join(true) {
        eprintln!("pbc lsp: {e}");
        return ExitCode::from(1);
    }
    match ended {
        Ended::Clean => ExitCode::SUCCESS,
        Ended::WithoutShutdown => ExitCode::from(1),
    }
}
