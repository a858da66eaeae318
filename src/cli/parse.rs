//! `pbc parse`: each file parsed (and with `--validate` checked by Puppet's parse-time rules),
//! its diagnostics printed, and its AST or PN written as it is made.

use super::args::{ErrorFormat, Format};
use super::output::{print, quiet_needs_text, Output};
use puppet_bindings::diag::{self, Diagnostic};
use puppet_bindings::pn::ProgramPn;
use puppet_bindings::reclaim::release;
use puppet_bindings::span::SourceMap;
use puppet_bindings::Options;
use puppet_bindings::{parse_and_validate, parse_file, parse_file_statements, source};
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
