//! `pbc parse`: the library parses every file ([`puppet_bindings::load::parse`], on every
//! core); this prints the diagnostics and writes the PN or the AST.

use super::args::{ErrorFormat, Format};
use super::output::{print, quiet_needs_text, Output};
use puppet_bindings::diag::{self, Diagnostic};
use puppet_bindings::load::parse::{parse_paths, ParseOutput, ParseReport};
use puppet_bindings::reclaim::release;
use puppet_bindings::Options;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// One file's AST in `pbc parse --format json` output.
#[derive(serde::Serialize)]
pub(crate) struct FileAst<'a> {
    pub(crate) file: &'a str,
    pub(crate) program: &'a puppet_bindings::ast::Program,
}

pub(crate) fn parse_command(
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
    let output = match format {
        Format::None => ParseOutput::Nothing,
        Format::Pn => ParseOutput::Pn,
        Format::Json => ParseOutput::Ast,
    };
    let report = match parse_paths(paths, output, validate, options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("pbc: {e}");
            return ExitCode::from(2);
        }
    };
    let ParseReport {
        files,
        diagnostics: diags,
        pn: pn_texts,
        programs,
    } = report;
    let has_errors = diags.iter().any(Diagnostic::is_error);
    let print_ast = format != Format::None && !has_errors;
    let rendered = match error_format {
        ErrorFormat::Human => out.diagnostics(&files, &diags, out.quiet.then_some(files.len())),
        ErrorFormat::Json => diag::render_json(&files, &diags, files.len()),
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
        // error.
        let stdout = std::io::stdout().lock();
        let mut sink = std::io::BufWriter::with_capacity(1 << 16, stdout);
        let written = pn_texts
            .iter()
            .try_for_each(|text| sink.write_all(text.as_bytes()))
            .and_then(|()| sink.flush());
        if let Err(e) = written {
            eprintln!("pbc: cannot write to standard output: {e}");
            return ExitCode::from(2);
        }
        release(pn_texts, options);
    } else if print_ast {
        let docs: Vec<FileAst> = programs
            .iter()
            .map(|(file, program)| FileAst {
                file: file.as_ref(),
                program,
            })
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
