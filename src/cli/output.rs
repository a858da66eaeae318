//! How `pbc` prints: colour and `--quiet` for diagnostics, and standard output written whole or
//! not at all (a write that fails is exit 2), except by the commands over many nodes, which
//! write their lines as they go ([`Output::stdout_sink`]).

use super::args::{Cli, ColourChoice};
use puppet_bindings::diag::{self, Diagnostic};
use puppet_bindings::inject::query::{OutputSink, ProgressSink};
use puppet_bindings::outcome::Outcome;
use puppet_bindings::span::SourceMap;
use std::io::Write;
use std::process::ExitCode;

/// How diagnostics are printed: what `--color` and `--quiet` decided.
#[derive(Clone, Copy)]
pub(crate) struct Output {
    pub(crate) colour: bool,
    pub(crate) quiet: bool,
}

impl Output {
    pub(crate) fn new(cli: &Cli) -> Output {
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

    /// A command's outcome printed: what it says on stderr (in colour when chosen), its output
    /// on stdout, and its status as the exit code.
    pub(crate) fn finish(self, outcome: &Outcome) -> ExitCode {
        let _ = std::io::stderr().write_all(outcome.stderr(self.colour).as_bytes());
        if let Err(code) = print(outcome.stdout.as_bytes()) {
            return code;
        }
        ExitCode::from(outcome.status)
    }

    /// Where a command over many nodes draws how far it is: on a terminal, unless --quiet.
    pub(crate) fn progress(self) -> Option<ProgressSink> {
        if !self.shows_progress() {
            return None;
        }
        Some(ProgressSink(std::sync::Arc::new(|done| match done {
            Some((count, total)) => eprint!("\rpbc: {count}/{total} nodes"),
            None => eprint!("\r\x1b[K"),
        })))
    }

    fn shows_progress(self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && std::io::stderr().is_terminal()
    }

    /// Standard output for a command that writes as it goes (`lookup --nodes`, `diff`). When
    /// the progress line is drawn, it is cleared before each write, so that on one terminal the
    /// output does not run into it (it is drawn again with the next nodes done).
    pub(crate) fn stdout_sink(self) -> OutputSink {
        let under_progress = UnderProgress {
            stdout: std::io::stdout(),
            clear: self.shows_progress(),
        };
        OutputSink(std::sync::Arc::new(std::sync::Mutex::new(
            std::io::BufWriter::with_capacity(1 << 16, under_progress),
        )))
    }

    /// The human rendering of a run's diagnostics for stderr: each finding, then the summary
    /// line when `summary` gives one; with --quiet only the summary, and only when something
    /// was found.
    pub(crate) fn diagnostics(
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

/// Standard output below a progress line on standard error.
struct UnderProgress {
    stdout: std::io::Stdout,
    clear: bool,
}

impl Write for UnderProgress {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.clear {
            eprint!("\r\x1b[K");
        }
        self.stdout.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stdout.flush()
    }
}

/// Writes all of `bytes` to standard output and flushes it. A write that fails (a full disk,
/// a closed pipe) is exit 2: nothing may claim success with its output lost.
pub(crate) fn print(bytes: &[u8]) -> Result<(), ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            eprintln!("pbc: cannot write to standard output: {e}");
            ExitCode::from(2)
        })
}

pub(crate) fn printed(result: Result<(), ExitCode>) -> ExitCode {
    result.err().unwrap_or(ExitCode::SUCCESS)
}

/// `--quiet` shortens the text output; JSON and SARIF list every finding by design.
pub(crate) fn quiet_needs_text() -> ExitCode {
    eprintln!(
        "pbc: --quiet shortens the text output: it does not go with --error-format json or sarif"
    );
    ExitCode::from(2)
}
