//! `pbc fmt`: the library lays out every file ([`puppet_bindings::format`]); this writes the
//! files laid out anew (each atomically, as `compile -o` writes), or lists them (`--check`), or
//! prints their diffs (`--diff`), and reports the files left as they are and why.

use super::atomic::AtomicFile;
use super::output::{print, Output};
use puppet_bindings::diag::{self, Diagnostic};
use puppet_bindings::format::{format_paths, format_source, Formatted};
use puppet_bindings::span::{FileId, SourceMap};
use puppet_bindings::Options;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What to do with a file whose layout changes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FmtMode {
    Write,
    Check,
    Diff,
}

pub(crate) fn fmt_command(
    out: Output,
    mode: FmtMode,
    paths: &[PathBuf],
    options: &Options,
) -> ExitCode {
    if paths.iter().any(|p| p.as_os_str() == "-") {
        if paths.len() > 1 {
            eprintln!("pbc: `-` (standard input) is formatted alone, without other paths");
            return ExitCode::from(2);
        }
        return fmt_stdin(out, mode, options);
    }
    let report = match format_paths(paths, options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("pbc: {e}");
            return ExitCode::from(2);
        }
    };
    let mut listed = String::new();
    if mode == FmtMode::Write {
        // On every core: each file waits for the disk to hold it before it replaces the old.
        let written = puppet_bindings::parallel::parallel_map(report.changed.len(), |i| {
            let (path, _, text) = &report.changed[i];
            write_atomically(path, text)
        });
        let mut failed = false;
        for ((path, _, _), result) in report.changed.iter().zip(written) {
            if let Err(e) = result {
                eprintln!("pbc: cannot write `{}`: {e}", path.display());
                failed = true;
            }
        }
        if failed {
            return ExitCode::from(2);
        }
    }
    for (path, id, text) in &report.changed {
        match mode {
            FmtMode::Write => {}
            FmtMode::Check => {
                listed.push_str(&path.display().to_string());
                listed.push('\n');
            }
            FmtMode::Diff => {
                let name = path.display().to_string();
                listed.push_str(&unified_diff(&name, report.files.source(*id), text));
            }
        }
    }
    if let Err(code) = print(listed.as_bytes()) {
        return code;
    }
    finish(
        out,
        &report.files,
        report.diagnostics,
        !report.changed.is_empty() && mode != FmtMode::Write,
    )
}

/// `pbc fmt -`: standard input laid out to standard output (for editors); a text that does
/// not parse is written back as it came, with its errors on standard error.
fn fmt_stdin(out: Output, mode: FmtMode, options: &Options) -> ExitCode {
    let limit = options.files.max_file_size();
    let mut bytes = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        eprintln!("pbc: cannot read standard input: {e}");
        return ExitCode::from(2);
    }
    if bytes.len() as u64 > limit {
        eprintln!(
            "pbc: standard input has more than the limit of {limit} bytes (`--max-file-size` raises it)"
        );
        return ExitCode::from(2);
    }
    let name = "<stdin>";
    let (text, bad) = puppet_bindings::source::decode(FileId(0), bytes);
    let formatted = match bad {
        Some(bad) => Formatted::NotParsed(vec![bad]),
        None => format_source(FileId(0), &text),
    };
    let mut files = SourceMap::default();
    let (laid_out, diagnostics) = match formatted {
        Formatted::Text(laid_out) => (Some(laid_out), Vec::new()),
        Formatted::NotParsed(diagnostics) => (None, diagnostics),
        Formatted::Refused(refusal) => (None, vec![refusal]),
    };
    let changed = laid_out.as_ref().is_some_and(|l| *l != text);
    let printed = match (mode, &laid_out) {
        (FmtMode::Write, Some(laid_out)) => print(laid_out.as_bytes()),
        (FmtMode::Write, None) => print(text.as_bytes()),
        (FmtMode::Diff, Some(laid_out)) if changed => {
            print(unified_diff(name, &text, laid_out).as_bytes())
        }
        _ => Ok(()),
    };
    if let Err(code) = printed {
        return code;
    }
    files.add(name, text);
    finish(out, &files, diagnostics, changed && mode != FmtMode::Write)
}

/// Reports the files left as they are; exit 1 when there were any, or when `--check` or
/// `--diff` found a file to lay out anew.
fn finish(
    out: Output,
    files: &SourceMap,
    mut diagnostics: Vec<Diagnostic>,
    found: bool,
) -> ExitCode {
    diag::sort(&mut diagnostics);
    if !diagnostics.is_empty() {
        let rendered = out.diagnostics(files, &diagnostics, None);
        let _ = std::io::stderr().lock().write_all(rendered.as_bytes());
    }
    if found || diagnostics.iter().any(Diagnostic::is_error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(text.as_bytes())?;
    file.commit()
}

/// `diff -u` of the file as it is and as laid out.
fn unified_diff(name: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(name, name)
        .to_string()
}
