//! The `pbc` command line: it reads the arguments, makes the one [`Options`] value every
//! command is given, and hands each subcommand to its own module, which calls the library and
//! prints what it returns. The library never prints; this never computes an answer.

mod args;
mod atomic;
mod check;
mod compile;
mod fmt;
mod lookup;
mod lsp;
mod output;
mod parse;
mod serve;

use args::{Cli, Command, MigrateCommand};
use check::check_command;
use clap::{CommandFactory, Parser};
use compile::compile_command;
use lookup::{diff_command, lookup_command};
use output::{print, printed, Output};
use parse::parse_command;
use puppet_bindings::source::FileAccess;
use puppet_bindings::{JsonLayout, Options};
use serve::serve_command;
use std::path::PathBuf;
use std::process::ExitCode;

/// The command line read, or the exit status when it is not a command: `--help`, `--version`
/// and `pbc help CMD` printed (like any other output: a write that fails is exit 2, where
/// clap's own `exit` would ignore it and exit 0), or a usage error.
pub(crate) fn arguments() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) if !e.use_stderr() => {
            let rendered = e.render();
            let text = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                rendered.ansi().to_string()
            } else {
                rendered.to_string()
            };
            Err(match print(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            })
        }
        Err(e) => e.exit(),
    }
}

pub(crate) fn run(cli: Cli) -> ExitCode {
    for (file, what) in [
        (&cli.binder_config, "binder configuration file"),
        (&cli.hiera_config, "Hiera configuration file"),
        (&cli.eyaml_private_key, "hiera-eyaml private key"),
    ] {
        if let Some(file) = file.as_ref().filter(|f| !f.is_file()) {
            if std::fs::metadata(file).is_ok() {
                eprintln!("pbc: the {what} `{}` is not a regular file", file.display());
            } else {
                eprintln!("pbc: cannot find the {what} `{}`", file.display());
            }
            return ExitCode::from(2);
        }
    }
    let mut files = FileAccess::default().with_max_file_size(cli.max_file_size);
    files.follow_symlinks = cli.follow_symlinks;
    files.confine = cli.confine;
    let options = Options {
        files,
        binder_config: cli.binder_config.clone(),
        hiera_config: cli.hiera_config.clone(),
        empty_levels: cli.empty_level.clone(),
        eyaml_private_key: cli.eyaml_private_key.clone(),
        // pbc exits after this one command: what it built is left to the exit, not freed
        // piece by piece. A server keeps running, and frees each model it drops.
        exits_after_command: !matches!(cli.command, Command::Serve(_) | Command::Lsp { .. }),
    };
    let options = &options;
    let out = Output::new(&cli);
    match cli.command {
        Command::Parse {
            format,
            error_format,
            validate,
            paths,
        } => parse_command(out, format, error_format, validate, &paths, options),
        Command::Check {
            error_format,
            strict,
            tree,
            paths,
        } => check_command(out, error_format, strict, &in_tree(tree, paths), options),
        Command::Compile {
            output,
            environment,
            compact,
            cache,
            tree,
            paths,
        } => compile_command(
            out,
            output.as_deref(),
            environment.as_deref(),
            cache,
            if compact || cache {
                JsonLayout::Compact
            } else {
                JsonLayout::Indented
            },
            &in_tree(tree, paths),
            options,
        ),
        Command::Lookup(args) => lookup_command(out, *args, options),
        Command::Diff(args) => diff_command(out, args, options),
        Command::Schema { answers } => printed(print(if answers {
            puppet_bindings::inject::command::ANSWERS_SCHEMA.as_bytes()
        } else {
            puppet_bindings::lower::model::SCHEMA.as_bytes()
        })),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "pbc", &mut script);
            printed(print(&script))
        }
        Command::Migrate(MigrateCommand::Hiera {
            dir,
            out: to,
            nodes,
        }) => out.finish(&puppet_bindings::migrate::run::run(
            &dir,
            &to,
            nodes.as_deref(),
            options,
        )),
        Command::Serve(args) => serve_command(&args, options),
        Command::Lsp { stdio: _, tree } => lsp::lsp_command(tree, options),
        Command::Fmt { check, diff, paths } => {
            let mode = match (check, diff) {
                (_, true) => fmt::FmtMode::Diff,
                (true, false) => fmt::FmtMode::Check,
                (false, false) => fmt::FmtMode::Write,
            };
            fmt::fmt_command(out, mode, &paths, options)
        }
        Command::Man => {
            let mut page = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut page) {
                Ok(()) => printed(print(&page)),
                Err(e) => {
                    eprintln!("pbc: cannot write the manual page: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// Whether the command is the language server: it runs for as long as the editor does and
/// holds a tree, so it is the one command run with its allocator returning freed memory at
/// once (see `main`).
pub(crate) fn is_language_server(cli: &Cli) -> bool {
    matches!(cli.command, Command::Lsp { .. })
}

/// `-C DIR` and the paths after it: each path relative to the tree, or the tree itself when
/// none is given (the current directory without -C).
pub(crate) fn in_tree(tree: Option<PathBuf>, paths: Vec<PathBuf>) -> Vec<PathBuf> {
    match (tree, paths.is_empty()) {
        (None, true) => vec![PathBuf::from(".")],
        (None, false) => paths,
        (Some(tree), true) => vec![tree],
        (Some(tree), false) => paths.into_iter().map(|p| tree.join(p)).collect(),
    }
}

/// A path given on the command line that does not exist is a usage problem, said plainly.
pub(crate) fn all_exist(paths: &[PathBuf]) -> Result<(), ExitCode> {
    match paths.iter().find(|p| !p.exists()) {
        Some(missing) => {
            eprintln!("pbc: `{}` does not exist", missing.display());
            Err(ExitCode::from(2))
        }
        None => Ok(()),
    }
}
