//! `pbc check`: the library's report printed as text, JSON or SARIF; `--strict` makes
//! warnings errors.

use super::all_exist;
use super::args::CheckErrorFormat;
use super::output::{print, quiet_needs_text, Output};
use puppet_bindings::diag::{self, Diagnostic};
use puppet_bindings::Options;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn check_command(
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
