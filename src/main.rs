//! The `pbc` command line. Thin: argument parsing, reading files, and printing what the library
//! returns. Exit status: 0 clean, 1 errors found, 2 usage or I/O problems.

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use puppet_bindings::diag::{self, Diagnostic};
use puppet_bindings::pn::ProgramPn;
use puppet_bindings::reclaim::release;
use puppet_bindings::source::FileAccess;
use puppet_bindings::span::SourceMap;
use puppet_bindings::Options;
use puppet_bindings::{parse_and_validate, parse_file, parse_file_statements, source, JsonLayout};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pbc", version, about = "The Puppet bindings compiler")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The largest file pbc reads (manifests, facts, ENC output), in bytes (at most 4 GiB);
    /// larger ones, and anything that is not a regular file, are refused.
    #[arg(long, global = true, default_value_t = puppet_bindings::source::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,
    /// Follow symbolic links that lead out of the tree (by default they are not read, with a
    /// warning): for trees you trust.
    #[arg(long, global = true, conflicts_with = "confine")]
    follow_symlinks: bool,
    /// Read nothing outside the tree: an environment path that leads out of it is an error
    /// naming the attribute (turn this on when checking trees nobody has reviewed).
    #[arg(long, global = true)]
    confine: bool,
    /// The binder_config.yaml every environment uses (categories and layers, ARM-9) instead of
    /// the one in its directory.
    #[arg(long, global = true, value_name = "FILE")]
    binder_config: Option<PathBuf>,
    /// Hiera's global configuration (`hiera.yaml` version 5, or Hiera 3's format): the level
    /// above every environment's, as `puppet lookup` reads `$confdir/hiera.yaml`.
    #[arg(long, global = true, value_name = "FILE")]
    hiera_config: Option<PathBuf>,
    /// A Hiera level, by its `name` in hiera.yaml, to search as if it held nothing: one pbc
    /// cannot search (a custom `lookup_key` or `data_dig` function, a Hiera 3 backend, `uri`s),
    /// where a lookup that reaches it before its answer otherwise fails
    /// (HIERA_LEVEL_NOT_SEARCHABLE), or a hiera-eyaml level on a machine without its key.
    #[arg(long, global = true, value_name = "NAME")]
    empty_level: Vec<String>,
    /// The private key (PEM) that opens every hiera-eyaml level's encrypted values, in place of
    /// the `pkcs7_private_key` file the level names (a CI machine has the key, not the
    /// server's path to it). pbc prints a decrypted value only as the answer asked for.
    #[arg(long, global = true, value_name = "FILE")]
    eyaml_private_key: Option<PathBuf>,
    /// Colour diagnostics: `auto` on a terminal unless NO_COLOR is set, `always`, `never`.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColourChoice::Auto)]
    color: ColourChoice,
    /// Print no warnings; parse, check and compile print only the summary line instead of each
    /// finding (nothing when clean).
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColourChoice {
    Auto,
    Always,
    Never,
}

/// How diagnostics are printed: what `--color` and `--quiet` decided.
#[derive(Clone, Copy)]
struct Output {
    colour: bool,
    quiet: bool,
}

impl Output {
    fn new(cli: &Cli) -> Output {
        use std::io::IsTerminal;
        let colour = match cli.color {
            ColourChoice::Always => true,
            ColourChoice::Never => false,
            // https://no-color.org: a set, non-empty NO_COLOR turns colour off; so does a dumb
            // terminal or output that is not a terminal.
            ColourChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && std::io::stderr().is_terminal()
            }
        };
        Output {
            colour,
            quiet: cli.quiet,
        }
    }

    /// The human rendering of a run's diagnostics for stderr: each finding, then the summary
    /// line when `summary` gives one; with --quiet only the summary, and only when something
    /// was found.
    fn diagnostics(
        self,
        files: &SourceMap,
        diags: &[Diagnostic],
        summary: Option<usize>,
    ) -> String {
        let mut text = if self.quiet {
            String::new()
        } else {
            diag::render(files, diags, self.colour)
        };
        if let Some(file_count) = summary {
            if !self.quiet || !diags.is_empty() {
                text.push_str(&diag::summary_line(diags, file_count));
            }
        }
        text
    }
}

#[derive(Subcommand)]
enum Command {
    /// Parse Puppet manifests (the language plus the bindings extension) and report syntax errors.
    Parse {
        /// What to print on success: nothing (`none`), the AST (`json`), or Puppet's PN JSON
        /// (`pn`, what `puppet parser dump --format json` prints, one line per file).
        #[arg(long, value_enum, default_value_t = Format::None)]
        format: Format,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
        error_format: ErrorFormat,
        /// Also run Puppet's parse-time validation (what `puppet parser validate` checks).
        #[arg(long)]
        validate: bool,
        /// Files or directories (searched for `*.pp`).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Check a configuration tree (confdir, environment or module directories, or files):
    /// Puppet's parse-time rules on every manifest, ARM-8's rules on site and bindings blocks,
    /// ARM-9's on binder_config.yaml, hiera.yaml and data files.
    Check {
        /// How to print diagnostics: `human` (to stderr, with a summary line), `json` or `sarif`
        /// (SARIF 2.1.0), both to stdout.
        #[arg(long, value_enum, default_value_t = CheckErrorFormat::Human)]
        error_format: CheckErrorFormat,
        /// Treat warnings as errors.
        #[arg(long)]
        strict: bool,
        /// The tree (default: the current directory); PATHS are relative to it.
        #[arg(short = 'C', long = "tree", value_name = "DIR")]
        tree: Option<PathBuf>,
        /// Files or directories (default: the tree).
        paths: Vec<PathBuf>,
    },
    /// Compile a configuration tree (one directory) or bindings files to the JSON bindings
    /// model. Nothing is written when the check finds errors.
    Compile {
        /// Write the model to this file (atomically: an existing file is replaced only by a
        /// complete model) instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The environment to compile when the directory has an environments.pp (default:
        /// production): its manifest, bindingsdir and modulepath decide the files.
        #[arg(long = "env", value_name = "NAME")]
        environment: Option<String>,
        /// Write the model's JSON on one line instead of indented (smaller, for machines).
        #[arg(long)]
        compact: bool,
        /// Write the model as an indexed cache (with -o) instead of JSON: `pbc lookup --model`
        /// then reads only the bindings a lookup needs.
        #[arg(long, requires = "output", conflicts_with = "compact")]
        cache: bool,
        /// The tree (default: the current directory); PATHS are relative to it.
        #[arg(short = 'C', long = "tree", value_name = "DIR")]
        tree: Option<PathBuf>,
        /// One tree directory, or bindings files (default: the tree).
        paths: Vec<PathBuf>,
    },
    /// Print the JSON Schema (draft 2020-12) of the model `pbc compile` writes.
    Schema {
        /// The schema of `pbc lookup --format answers` instead.
        #[arg(long)]
        answers: bool,
    },
    /// Resolve keys for one node, offline, from the tree and the node's facts: each value as
    /// JSON on stdout. Exit 0 when all are found, 1 when one is not or an error occurs.
    Lookup(Box<LookupArgs>),
    /// What changes for which node between two trees (two checkouts, before and after a
    /// change): every node of a factsets directory is looked up in both, and only the nodes
    /// and keys whose answers differ are printed. Exit 0 when nothing differs, 1 when
    /// something does.
    Diff(DiffArgs),
    /// Write the bindings a tree in another format stands for, in a copy of the tree.
    #[command(subcommand)]
    Migrate(MigrateCommand),
    /// Print a completion script for a shell (`pbc completions bash > /etc/bash_completion.d/pbc`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print pbc's manual page (roff; `pbc man > pbc.1`, then `man ./pbc.1`).
    Man,
    /// Answer Puppet's lookups from compiled models kept in memory, over a Unix socket: the
    /// `pbc::lookup_key` Hiera backend's server mode (docs/puppet.md). Each connection is one
    /// node's compile: its model, environment and facts, then one key per line, each answered
    /// as `pbc lookup --model --format answers` answers it (docs/answers.md). A model is loaded
    /// when first named and again when its file changes. Runs until killed.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// The Unix socket to listen on; created readable and writable by the owner and group
    /// (0660): whoever can open it can ask any model under `--models`.
    #[arg(long, value_name = "PATH")]
    socket: PathBuf,
    /// A directory whose models (at any depth) clients may name, usually the code directory's
    /// `environments`; repeatable. Any other model is refused.
    #[arg(long = "models", value_name = "DIR", required = true)]
    models: Vec<PathBuf>,
    /// Seconds a connection may wait for its next line before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    idle: u64,
    /// Seconds a model stays loaded after its last connection.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    model_idle: u64,
    /// Connections open at once (one per compile in progress); one more is told the server is
    /// busy.
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_connections: usize,
}

#[derive(clap::Subcommand)]
enum MigrateCommand {
    /// A Hiera 5 environment as bindings: its hierarchy as the site's categories (down to the
    /// first entry that cannot be one: a glob, mapped_paths), its data files as `when` blocks
    /// of `bind`s in `bindings/default.pp`; what cannot map stays Hiera data. Exit 0 when
    /// done (and, with --nodes, when every node gets the same answers from both trees).
    Hiera {
        /// The environment's directory (its hiera.yaml, data and modules).
        dir: PathBuf,
        /// The new tree (a directory that does not exist yet).
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: PathBuf,
        /// Check the migration: every node of this factsets directory gets the same answer for
        /// every key from both trees (`pbc lookup --nodes --all` on each).
        #[arg(long, value_name = "FACTSDIR")]
        nodes: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct LookupArgs {
    /// Keys (`ntp::servers`, `/param/Class[ntp]/servers`, `/classes`), then optionally the
    /// tree directory (or give it with -C).
    #[arg(required_unless_present = "all")]
    args: Vec<String>,
    /// The tree (default: the current directory), like `git -C` or `make -C`.
    #[arg(short = 'C', long = "tree", value_name = "DIR")]
    tree: Option<PathBuf>,
    /// A JSON or YAML facts file, a directory of `<node>.json` factsets (with --node), or `-`
    /// for standard input.
    #[arg(long)]
    facts: Option<PathBuf>,
    /// The node (its facts in a factsets directory; also `$fqdn` when facts lack it).
    #[arg(long)]
    node: Option<String>,
    /// Every node of a factsets directory (`<node>.json|yaml|yml`), in parallel: one JSON line
    /// per node, `{"node", "environment", "values", "errors"}`, in node order.
    #[arg(long, value_name = "FACTSDIR")]
    nodes: Option<PathBuf>,
    /// Answer from a model `pbc compile DIR` wrote (no tree is read), in the environment it
    /// was compiled for.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["tree", "agent_environment"])]
    model: Option<PathBuf>,
    /// A fact, `name=value` (JSON when it reads as JSON); repeatable, applied last.
    #[arg(long)]
    fact: Vec<String>,
    /// The environment, instead of what environments.pp picks.
    #[arg(long = "env")]
    environment: Option<String>,
    /// What the agent asked for: `$agent_environment` in environments.pp.
    #[arg(long)]
    agent_environment: Option<String>,
    /// The keys' type (`Array[String]`); the value must have it.
    #[arg(long = "type")]
    type_: Option<String>,
    /// The node classifier's output for the node (YAML or JSON: `environment`, `classes`,
    /// `parameters`; `-` for standard input): seen by environments.pp, and bindings wherever a
    /// layer includes `enc:`.
    #[arg(long)]
    enc: Option<PathBuf>,
    /// The value to print when nothing is bound (a Puppet literal, else a string).
    #[arg(long)]
    default: Option<String>,
    /// Every effective key with its value, as one JSON object sorted by key.
    #[arg(long)]
    all: bool,
    /// For each key: categories, every candidate binding per layer, the winner and why.
    #[arg(long)]
    explain: bool,
    /// With --explain, print a value decrypted from hiera-eyaml data too (an explanation
    /// leaves it out, since it is for logs and tickets).
    #[arg(long, requires = "explain")]
    show_decrypted: bool,
    /// `json`: the values as one JSON object (failed keys under `errors`), or with --explain
    /// the explanations as JSON; `text` (default): one JSON value per line, or explanations;
    /// `answers`: one document for programs (Puppet's Hiera backend), each key's value in
    /// Puppet's rich data with the binding that won, or its error (docs/answers.md, `pbc
    /// schema --answers`).
    #[arg(long, value_enum, default_value_t = LookupFormat::Text)]
    format: LookupFormat,
    /// Indent JSON output (--all, --format json); compact otherwise.
    #[arg(long)]
    pretty: bool,
    /// Unknown variables are errors.
    #[arg(long)]
    strict: bool,
    /// How Hiera 5 data merges, instead of what `lookup_options` says (as `puppet lookup
    /// --merge`): `first`, `unique`, `hash` or `deep`.
    #[arg(long, value_name = "STRATEGY")]
    merge: Option<String>,
    /// With `--merge deep`: array elements and hash values from lower levels that this prefix
    /// knocks out (`--knock-out-prefix --`).
    #[arg(long, value_name = "PREFIX", allow_hyphen_values = true)]
    knock_out_prefix: Option<String>,
    /// With `--merge deep`: sort merged arrays.
    #[arg(long)]
    sort_merged_arrays: bool,
    /// With `--merge deep`: merge arrays of hashes element by element.
    #[arg(long)]
    merge_hash_arrays: bool,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// The tree (a directory) or model (a file `pbc compile` wrote) before the change, the one
    /// after it, then the keys to compare (or --all: every key either side binds).
    #[arg(value_name = "OLD NEW KEY")]
    args: Vec<String>,
    /// Both sides as models instead (`--model OLD --model NEW`); the arguments are then keys.
    #[arg(long = "model", value_name = "FILE")]
    model: Vec<PathBuf>,
    /// The factsets directory (`<node>.json|yaml|yml`): every node is compared.
    #[arg(long, value_name = "FACTSDIR")]
    nodes: PathBuf,
    /// Compare every key either tree binds.
    #[arg(long)]
    all: bool,
    /// A fact for every node, `name=value`; repeatable.
    #[arg(long)]
    fact: Vec<String>,
    /// The environment, instead of what environments.pp picks.
    #[arg(long = "env")]
    environment: Option<String>,
    /// `json`: a JSON line per node that differs; `text` (default): the node, then
    /// `key: old -> new` per key.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    format: ExplainFormat,
    /// Unknown variables are errors.
    #[arg(long)]
    strict: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExplainFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LookupFormat {
    Text,
    Json,
    Answers,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckErrorFormat {
    Human,
    Json,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    None,
    Json,
    Pn,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ErrorFormat {
    Human,
    Json,
}

/// One file's AST in `pbc parse --format json` output.
#[derive(serde::Serialize)]
struct FileAst<'a> {
    file: &'a str,
    program: &'a puppet_bindings::ast::Program,
}

/// pbc allocates a node, a binding or a model entry at a time on every core; mimalloc does that
/// in about 15% less time than the system's allocator (README, Dependencies).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--help`, `--version` and `pbc help CMD` are output like any other: a write that
        // fails is exit 2 (clap's own `exit` would ignore it and exit 0).
        Err(e) if !e.use_stderr() => {
            let rendered = e.render();
            let text = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                rendered.ansi().to_string()
            } else {
                rendered.to_string()
            };
            return match print(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            };
        }
        Err(e) => e.exit(),
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
        .spawn(move || run(cli));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            eprintln!("pbc: cannot start: {e}");
            ExitCode::from(2)
        }
    }
}

/// Writes all of `bytes` to standard output and flushes it. A write that fails (a full disk,
/// a closed pipe) is exit 2: nothing may claim success with its output lost.
fn print(bytes: &[u8]) -> Result<(), ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            eprintln!("pbc: cannot write to standard output: {e}");
            ExitCode::from(2)
        })
}

fn run(cli: Cli) -> ExitCode {
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
        exits_after_command: !matches!(cli.command, Command::Serve(_)),
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
        }) => {
            let outcome = puppet_bindings::migrate::run::run(
                &dir,
                &to,
                nodes.as_deref(),
                out.colour,
                options,
            );
            let _ = std::io::stderr().write_all(outcome.stderr.as_bytes());
            if let Err(code) = print(outcome.stdout.as_bytes()) {
                return code;
            }
            ExitCode::from(outcome.status)
        }
        Command::Serve(args) => serve_command(&args, options),
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

/// `pbc serve`: the socket made (a stale one from a server that died is replaced, a live one
/// is not), then connections served until the process is killed.
fn serve_command(args: &ServeArgs, options: &Options) -> ExitCode {
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

/// Standard output for a model, which is written a chunk at a time. `Stdout` is line-buffered:
/// it searches each write for its last newline, and compact JSON has none, so every byte of a
/// 57 MB model was searched (2% of a compile's instructions). On Unix the chunks go to a
/// duplicate of the descriptor instead, after whatever `Stdout` still holds.
fn model_output() -> std::io::Result<Box<dyn Write>> {
    let stdout = std::io::stdout();
    stdout.lock().flush()?;
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = stdout.as_fd().try_clone_to_owned() {
            return Ok(Box::new(std::fs::File::from(fd)));
        }
    }
    Ok(Box::new(stdout.lock()))
}

fn printed(result: Result<(), ExitCode>) -> ExitCode {
    result.err().unwrap_or(ExitCode::SUCCESS)
}

/// `-C DIR` and the paths after it: each path relative to the tree, or the tree itself when
/// none is given (the current directory without -C).
fn in_tree(tree: Option<PathBuf>, paths: Vec<PathBuf>) -> Vec<PathBuf> {
    match (tree, paths.is_empty()) {
        (None, true) => vec![PathBuf::from(".")],
        (None, false) => paths,
        (Some(tree), true) => vec![tree],
        (Some(tree), false) => paths.into_iter().map(|p| tree.join(p)).collect(),
    }
}

fn lookup_command(out: Output, a: LookupArgs, options: &Options) -> ExitCode {
    let mut keys = a.args;
    let tree_given = a.tree.is_some();
    let tree = match (a.tree, keys.last()) {
        (Some(tree), _) => tree,
        // Without -C, a last argument that names a directory is the tree (scripts use it).
        (None, Some(last)) if std::path::Path::new(last).is_dir() => {
            PathBuf::from(keys.pop().unwrap_or_default())
        }
        _ => PathBuf::from("."),
    };
    if !tree.is_dir() {
        eprintln!("pbc: the tree `{}` is not a directory", tree.display());
        return ExitCode::from(2);
    }
    if a.model.is_some() && tree != std::path::Path::new(".") {
        eprintln!("pbc: --model answers from the model alone: give no tree");
        return ExitCode::from(2);
    }
    // Without -C, a path where a key is expected (a tree that is not there) is a mistake to
    // say, not a key to look up in vain. Hiera keys may hold `/` after their first segment
    // (`mounts./home.device`, `a::b."/srv/www"`), and with -C every argument is a key.
    let naming_scheme = ["/param/", "/var/", "/map/"];
    let looks_like_a_path = |k: &str| {
        let root = puppet_bindings::data::interpolation::split_key(k)
            .map_or_else(|| k.to_string(), |(root, _)| root);
        root.contains('/') && k != "/classes" && !naming_scheme.iter().any(|p| k.starts_with(p))
    };
    if let Some(path) = keys.iter().find(|k| !tree_given && looks_like_a_path(k)) {
        eprintln!(
            "pbc: `{path}` is neither a key nor a directory: keys are names (`ntp::servers`) or the naming scheme's (`/param/Class[ntp]/servers`, `/var/x`, `/classes`); give the tree with -C DIR"
        );
        return ExitCode::from(2);
    }
    if keys.is_empty() && !a.all {
        eprintln!("pbc: lookup needs keys, or --all");
        return ExitCode::from(2);
    }
    if !keys.is_empty() && a.all {
        eprintln!("pbc: --all looks up every key: give keys or --all, not both");
        return ExitCode::from(2);
    }
    if a.pretty && !a.all && a.format == LookupFormat::Text {
        eprintln!("pbc: --pretty indents JSON output: it goes with --all or --format json");
        return ExitCode::from(2);
    }
    if a.format == LookupFormat::Answers && (a.explain || a.nodes.is_some()) {
        eprintln!(
            "pbc: --format answers answers one node's keys: it goes without --explain and --nodes"
        );
        return ExitCode::from(2);
    }
    if a.facts.as_deref() == Some(std::path::Path::new("-"))
        && a.enc.as_deref() == Some(std::path::Path::new("-"))
    {
        eprintln!("pbc: standard input can be the facts (--facts -) or the ENC output (--enc -), not both");
        return ExitCode::from(2);
    }
    let outcome = puppet_bindings::inject::command::run(
        &puppet_bindings::inject::command::LookupOptions {
            keys,
            tree,
            facts: a.facts,
            node: a.node,
            fact: a.fact,
            environment: a.environment,
            agent_environment: a.agent_environment,
            type_: a.type_,
            default: a.default,
            enc: a.enc,
            all: a.all,
            explain: a.explain,
            json: a.format == LookupFormat::Json,
            answers: a.format == LookupFormat::Answers,
            pretty: a.pretty,
            strict: a.strict,
            colour: out.colour,
            quiet: out.quiet,
            progress: a.nodes.is_some()
                && !out.quiet
                && std::io::IsTerminal::is_terminal(&std::io::stderr()),
            nodes: a.nodes,
            model: a.model,
            merge: a.merge,
            knock_out_prefix: a.knock_out_prefix,
            sort_merged_arrays: a.sort_merged_arrays,
            merge_hash_arrays: a.merge_hash_arrays,
            show_decrypted: a.show_decrypted,
        },
        options,
    );
    let _ = std::io::stderr().write_all(outcome.stderr.as_bytes());
    if let Err(code) = print(outcome.stdout.as_bytes()) {
        return code;
    }
    ExitCode::from(outcome.status)
}

fn diff_command(out: Output, a: DiffArgs, options: &Options) -> ExitCode {
    let (old, new, keys) = match (a.model.as_slice(), a.args.as_slice()) {
        ([old, new], keys) => (old.clone(), new.clone(), keys.to_vec()),
        ([], [old, new, keys @ ..]) => (PathBuf::from(old), PathBuf::from(new), keys.to_vec()),
        ([], _) => {
            eprintln!("pbc: diff needs the old and the new tree (or model), then keys or --all");
            return ExitCode::from(2);
        }
        _ => {
            eprintln!("pbc: --model names both sides: `--model OLD --model NEW`");
            return ExitCode::from(2);
        }
    };
    if let Err(code) = all_exist(&[old.clone(), new.clone(), a.nodes.clone()]) {
        return code;
    }
    if keys.is_empty() != a.all {
        eprintln!("pbc: diff compares the keys given, or every key with --all (one of the two)");
        return ExitCode::from(2);
    }
    let opts = puppet_bindings::inject::command::LookupOptions {
        keys,
        fact: a.fact,
        environment: a.environment,
        all: a.all,
        strict: a.strict,
        colour: out.colour,
        quiet: out.quiet,
        progress: !out.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        ..Default::default()
    };
    let outcome = puppet_bindings::inject::diff::run(
        &opts,
        &old,
        &new,
        &a.nodes,
        None,
        a.format == ExplainFormat::Json,
        options,
    );
    let _ = std::io::stderr().write_all(outcome.stderr.as_bytes());
    if let Err(code) = print(outcome.stdout.as_bytes()) {
        return code;
    }
    ExitCode::from(outcome.status)
}

fn compile_command(
    out: Output,
    output: Option<&std::path::Path>,
    environment: Option<&str>,
    cache: bool,
    layout: JsonLayout,
    paths: &[PathBuf],
    options: &Options,
) -> ExitCode {
    use puppet_bindings::CompileMode;
    if let Err(code) = all_exist(paths) {
        return code;
    }
    let files_mode = !matches!(paths, [dir] if dir.is_dir());
    if cache && files_mode {
        eprintln!("pbc: --cache indexes a tree's model: give the tree's directory");
        return ExitCode::from(2);
    }
    let mut declined = None;
    let mut reported = false;
    let sink = CompileSink {
        out: &out,
        output,
        cache,
        files_mode,
        declined: &mut declined,
        reported: &mut reported,
        draft: None,
    };
    let compiled = match paths {
        [dir] if dir.is_dir() => {
            puppet_bindings::compile_dir(dir, environment, layout, sink, options)
        }
        _ if paths.iter().all(|p| p.is_file()) && environment.is_none() => {
            puppet_bindings::tree::discover(paths, options).and_then(|tree| {
                puppet_bindings::compile_tree_files(
                    &tree,
                    None,
                    CompileMode::Files,
                    layout,
                    sink,
                    options,
                )
            })
        }
        _ => {
            eprintln!(
                "pbc: compile takes one tree directory (with --env, a site), or bindings files"
            );
            return ExitCode::from(2);
        }
    };
    let report = match compiled {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pbc: {e}");
            return ExitCode::from(2);
        }
    };
    match declined {
        Some(Declined::NothingToCompile) => {
            eprintln!(
                "pbc: {} hold{} no `bindings` blocks, so there is nothing to compile\npbc: to compile a site (its categories, layers and every environment's bindings), give its directory: `pbc compile DIR`",
                paths
                    .iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect::<Vec<_>>()
                    .join(", "),
                if paths.len() == 1 { "s" } else { "" }
            );
            return ExitCode::from(2);
        }
        Some(Declined::CannotIndex(e)) => {
            eprintln!("pbc: cannot index the model: {e}");
            return ExitCode::from(2);
        }
        None => {}
    }
    if !reported {
        let check = &report.check;
        let text = out.diagnostics(&check.files, &check.diagnostics, Some(check.file_count));
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
    match report.written {
        None => ExitCode::from(1),
        Some(Ok(())) => ExitCode::SUCCESS,
        Some(Err(e)) => {
            eprintln!("pbc: cannot write the model: {e}");
            ExitCode::from(2)
        }
    }
}

/// What `pbc compile` declined to write, said once compiling is over.
enum Declined {
    NothingToCompile,
    CannotIndex(String),
}

/// Where `pbc compile` puts the model: its output file, standard output, or the model's cache
/// format. Its draft is the temporary file that becomes the output (or, for the cache, the
/// JSON text the cache is made from), so a tree's model is written while its layers are still
/// judged; the draft is dropped, the output untouched, if the check finds errors.
struct CompileSink<'a> {
    out: &'a Output,
    output: Option<&'a std::path::Path>,
    cache: bool,
    files_mode: bool,
    declined: &'a mut Option<Declined>,
    /// Whether the check's findings were printed here (before the model is written).
    reported: &'a mut bool,
    draft: Option<Draft>,
}

enum Draft {
    /// The output file, or why it could not be made (said if the check passes).
    File(std::io::Result<AtomicFile>),
    Text(Vec<u8>),
}

impl puppet_bindings::ModelSink for CompileSink<'_> {
    fn draft(&mut self) -> Option<&mut (dyn Write + Send)> {
        let draft = match (self.cache, self.output) {
            (true, _) => Draft::Text(Vec::new()),
            (false, Some(path)) => Draft::File(AtomicFile::create(path)),
            // Standard output cannot take back what it was given.
            (false, None) => return None,
        };
        match self.draft.insert(draft) {
            Draft::File(Ok(file)) => Some(file),
            Draft::File(Err(_)) => None,
            Draft::Text(text) => Some(text),
        }
    }

    fn accept(
        self,
        check: &puppet_bindings::CheckReport,
        bindings_blocks: usize,
        model: puppet_bindings::ModelWriter,
    ) -> std::io::Result<()> {
        if self.files_mode && bindings_blocks == 0 {
            *self.declined = Some(Declined::NothingToCompile);
            return Ok(());
        }
        let text = self.out.diagnostics(&check.files, &check.diagnostics, None);
        let _ = std::io::stderr().write_all(text.as_bytes());
        *self.reported = true;
        if self.cache {
            let text = match self.draft {
                Some(Draft::Text(mut text)) => {
                    model.write_to(&mut text)?;
                    String::from_utf8(text).map_err(std::io::Error::other)?
                }
                _ => model.into_text()?,
            };
            return match puppet_bindings::lower::cache::write(&text) {
                Ok(bytes) => match self.output {
                    Some(path) => {
                        let mut file = AtomicFile::create(path)?;
                        file.write_all(&bytes)?;
                        file.commit()
                    }
                    None => std::io::stdout()
                        .lock()
                        .write_all(&bytes)
                        .and_then(|()| std::io::stdout().flush()),
                },
                Err(e) => {
                    *self.declined = Some(Declined::CannotIndex(e.to_string()));
                    Ok(())
                }
            };
        }
        // Written as JSON straight to its output: no text in memory.
        match (self.output, self.draft) {
            (Some(path), draft) => {
                let mut file = match draft {
                    Some(Draft::File(file)) => file?,
                    _ => AtomicFile::create(path)?,
                };
                model.write_to(&mut file)?;
                file.commit()
            }
            (None, _) => model.write_to(model_output()?),
        }
    }
}

/// A temporary file beside `path` that [`commit`](AtomicFile::commit) renames over `path`:
/// readers see the old file or the whole new one, never a partial model. The temporary file is
/// created exclusively under a random name (no one can plant a link there), takes the target's
/// permissions, and is removed on every failure and when dropped uncommitted; ones that a
/// killed run left behind are removed by the next run. A target that exists and is not a
/// regular file (a FIFO, a device, a link) is refused.
struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    /// Written since the last flush to disk was started.
    unflushed: usize,
    /// Flushes what was written so far to disk while more is written, so that `commit` waits
    /// only for the last part (a model is tens of megabytes).
    flushing: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    path: PathBuf,
    /// The target's permissions, when it exists.
    permissions: Option<std::fs::Permissions>,
}

impl AtomicFile {
    fn create(path: &std::path::Path) -> std::io::Result<AtomicFile> {
        use std::io::{Error, ErrorKind};
        let permissions = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_file() => Some(m.permissions()),
            Ok(_) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "{} exists and is not a regular file; pbc replaces only regular files",
                        path.display()
                    ),
                ))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{name}.pbc-");
        remove_stale_temporaries(&dir, &prefix);
        // The writer's process id in the name tells the next run whether it is still alive.
        let ours = format!("{prefix}{}-", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&ours).suffix(".tmp");
        // A new model is created as any new file is (0666 less the umask), not private as a
        // temporary would be: CI writes it for others to read.
        #[cfg(unix)]
        if permissions.is_none() {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        Ok(AtomicFile {
            tmp: builder.tempfile_in(&dir)?,
            unflushed: 0,
            flushing: None,
            path: path.to_path_buf(),
            permissions,
        })
    }

    /// How the flush started last went, once it is over (none: `Ok`).
    fn flushed(&mut self) -> std::io::Result<()> {
        match self.flushing.take() {
            Some(flushing) => flushing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => Ok(()),
        }
    }

    /// Makes the written file the target, once it is on disk.
    fn commit(mut self) -> std::io::Result<()> {
        self.flushed()?;
        self.tmp.as_file().sync_all()?;
        if let Some(p) = self.permissions {
            self.tmp.as_file().set_permissions(p)?;
        }
        self.tmp
            .persist(&self.path)
            .map(|_| ())
            .map_err(|e| e.error)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // A flush that failed fails the next write, before it writes anything.
        if self.flushing.as_ref().is_some_and(|f| f.is_finished()) {
            self.flushed()?;
        }
        let written = self.tmp.as_file_mut().write(buf)?;
        self.unflushed += written;
        // Every 8 MB, unless the last flush is still running.
        if self.unflushed >= 8 << 20 && self.flushing.is_none() {
            if let Ok(file) = self.tmp.as_file().try_clone() {
                self.flushing = Some(std::thread::spawn(move || file.sync_data()));
            }
            self.unflushed = 0;
        }
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Temporary files of our naming pattern left by a run that was killed before it could remove
/// them (`kill -9`, a machine that lost power): those whose writer's process is gone (its id is
/// in the name, and `/proc` says whether it runs), and any older than an hour (a running
/// compile writes its file within seconds; where there is no `/proc`, or a process id was
/// reused).
fn remove_stale_temporaries(dir: &std::path::Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let hour = std::time::Duration::from_secs(3600);
    let proc = std::path::Path::new("/proc/self").is_dir();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(prefix) || !name.ends_with(".tmp") {
            continue;
        }
        let Some(meta) = entry.metadata().ok().filter(|m| m.file_type().is_file()) else {
            continue;
        };
        let writer_gone = name[prefix.len()..]
            .split_once('-')
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
            .is_some_and(|pid| {
                proc && pid != std::process::id()
                    && !std::path::Path::new("/proc").join(pid.to_string()).exists()
            });
        let old = meta
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > hour);
        if writer_gone || old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `--quiet` shortens the text output; JSON and SARIF list every finding by design.
fn quiet_needs_text() -> ExitCode {
    eprintln!(
        "pbc: --quiet shortens the text output: it does not go with --error-format json or sarif"
    );
    ExitCode::from(2)
}

/// A path given on the command line that does not exist is a usage problem, said plainly.
fn all_exist(paths: &[PathBuf]) -> Result<(), ExitCode> {
    match paths.iter().find(|p| !p.exists()) {
        Some(missing) => {
            eprintln!("pbc: `{}` does not exist", missing.display());
            Err(ExitCode::from(2))
        }
        None => Ok(()),
    }
}

fn check_command(
    out: Output,
    error_format: CheckErrorFormat,
    strict: bool,
    paths: &[PathBuf],
    options: &Options,
) -> ExitCode {
    if let Err(code) = all_exist(paths) {
        return code;
    }
    if out.quiet && error_format != CheckErrorFormat::Human {
        return quiet_needs_text();
    }
    let report = match puppet_bindings::check_paths(paths, options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pbc: {e}");
            return ExitCode::from(2);
        }
    };
    let mut diags = report.diagnostics;
    if strict {
        for d in &mut diags {
            d.severity = diag::Severity::Error;
        }
    }
    let files = &report.files;
    match error_format {
        CheckErrorFormat::Human => {
            let text = out.diagnostics(files, &diags, Some(report.file_count));
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
        CheckErrorFormat::Json => {
            let text = diag::render_json(files, &diags, report.file_count);
            if let Err(code) = print(text.as_bytes()) {
                return code;
            }
        }
        CheckErrorFormat::Sarif => {
            let text = diag::sarif::render(files, &diags);
            if let Err(code) = print(text.as_bytes()) {
                return code;
            }
        }
    }
    if diags.iter().any(Diagnostic::is_error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn parse_command(
    out: Output,
    format: Format,
    error_format: ErrorFormat,
    validate: bool,
    paths: &[PathBuf],
    options: &Options,
) -> ExitCode {
    if out.quiet && error_format != ErrorFormat::Human {
        return quiet_needs_text();
    }
    let files_list = match source::expand_paths(paths, &options.files) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("pbc: {e}");
            return ExitCode::from(2);
        }
    };
    let mut files = SourceMap::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut programs = Vec::new();
    let mut pn_texts: Vec<String> = Vec::new();
    for (number, path) in files_list.iter().enumerate() {
        let bytes = match puppet_bindings::source::read_file(path, "manifest", &options.files) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("pbc: {e}");
                return ExitCode::from(2);
            }
        };
        let name = path.to_string_lossy().into_owned();
        let (id, bad) = source::add_source(&mut files, &name, bytes);
        if let Some(d) = bad {
            diags.push(d);
            continue;
        }
        if !validate && format != Format::Json {
            // Nothing needs a whole tree: each top-level statement is written (as PN) and freed
            // as soon as it is parsed, so a large manifest's tree is never held.
            let mut pn = (format == Format::Pn).then(ProgramPn::default);
            let found = parse_file_statements(id, files.source(id), &mut |statement| {
                if let Some(pn) = &mut pn {
                    pn.statement(&statement);
                }
            });
            let clean = !found.iter().any(Diagnostic::is_error);
            diags.extend(found);
            if let (Some(pn), true) = (pn, clean) {
                pn_texts.push(pn.finish());
            }
            continue;
        }
        let parsed = if validate {
            parse_and_validate(id, files.source(id))
        } else {
            parse_file(id, files.source(id))
        };
        diags.extend(parsed.diagnostics);
        // Without an output format nothing reads the trees again: each is freed here, so a
        // directory's parse holds one file's tree at a time. Nothing is built after the last,
        // which is left to the exit (a 60 MB manifest's tree took a twentieth of its parse to
        // free).
        match parsed.program {
            Some(p) if format != Format::None => programs.push((name, p)),
            Some(p) if number + 1 == files_list.len() => release(p, options),
            _ => {}
        }
    }
    diag::sort(&mut diags);
    let has_errors = diags.iter().any(Diagnostic::is_error);
    let print_ast = format != Format::None && !has_errors;
    let rendered = match error_format {
        ErrorFormat::Human => {
            out.diagnostics(&files, &diags, out.quiet.then_some(files_list.len()))
        }
        ErrorFormat::Json => diag::render_json(&files, &diags, files_list.len()),
    };
    if error_format == ErrorFormat::Json && !print_ast {
        if let Err(code) = print(rendered.as_bytes()) {
            return code;
        }
    } else {
        let _ = std::io::stderr().write_all(rendered.as_bytes());
    }
    if print_ast && format == Format::Pn {
        // The PN made while each file was parsed, held until every file is known to have no
        // error; or, with `--validate`, written from each tree as it is made.
        let stdout = std::io::stdout().lock();
        let mut sink = std::io::BufWriter::with_capacity(1 << 16, stdout);
        let written = pn_texts
            .iter()
            .try_for_each(|text| sink.write_all(text.as_bytes()))
            .and_then(|()| {
                programs.iter().try_for_each(|(_, program)| {
                    puppet_bindings::pn::write_program(program, &mut sink)
                })
            })
            .and_then(|()| sink.flush());
        if let Err(e) = written {
            eprintln!("pbc: cannot write to standard output: {e}");
            return ExitCode::from(2);
        }
        release(programs, options);
    } else if print_ast {
        let docs: Vec<FileAst> = programs
            .iter()
            .map(|(file, program)| FileAst { file, program })
            .collect();
        // Written as it is made, as the PN is: the AST's JSON is about nine times the source.
        let stdout = std::io::stdout().lock();
        let mut sink = std::io::BufWriter::with_capacity(1 << 16, stdout);
        let written = puppet_bindings::indented_json::to_writer(&mut sink, &docs)
            .map_err(std::io::Error::from)
            .and_then(|()| sink.write_all(b"\n"))
            .and_then(|()| sink.flush());
        if let Err(e) = written {
            eprintln!("pbc: cannot write to standard output: {e}");
            return ExitCode::from(2);
        }
        drop(docs);
        release(programs, options);
    }
    if has_errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
