//! `pbc parse` as a library call: every file of the paths given read, parsed (and with
//! `validate` checked by Puppet's parse-time rules) and turned into what was asked (nothing,
//! PN, or the AST), each file on whichever core is free as soon as the walk finds it: walking,
//! reading and parsing overlap across the cores. The report is in the sorted order of the
//! files, whatever order the walk found them in and whichever core parsed them, so it is
//! byte-identical on any number of cores.
//!
//! It owns the command's work, not its printing: the report holds the sources, the diagnostics
//! (sorted) and the outputs for the command line to write.

use crate::ast::Program;
use crate::diag::{self, Diagnostic};
use crate::options::Options;
use crate::pn::ProgramPn;
use crate::span::{FileId, SourceMap};
use std::path::PathBuf;

/// What `pbc parse` makes of each file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseOutput {
    /// Nothing: only the diagnostics.
    Nothing,
    /// Puppet's PN of each file, one after another.
    Pn,
    /// Each file's AST, kept for one JSON document.
    Ast,
}

/// What a parse of many files gives back.
pub struct ParseReport {
    /// Every file read, in order (each file's id is its place); only the files with
    /// diagnostics keep their text, which is all that renders them.
    pub files: SourceMap,
    /// Every file's diagnostics, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// With [`ParseOutput::Pn`]: each file's PN, in order (a file with an error has none).
    pub pn: Vec<String>,
    /// With [`ParseOutput::Ast`]: each file's name and AST, in order.
    pub programs: Vec<(std::sync::Arc<str>, Program)>,
}

impl ParseReport {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// One file's part of the report, made on any core.
struct ParsedFile {
    /// Made on the core that parsed the file: the file list takes it as it is.
    name: std::sync::Arc<str>,
    text: String,
    diagnostics: Vec<Diagnostic>,
    pn: Option<String>,
    program: Option<Program>,
}

/// Parses every `.pp` file of `paths` (directories walked as [`crate::source::expand_paths`]
/// walks them, in its order). A file that cannot be read is an I/O error, as it is for the
/// whole command.
///
/// Files are parsed as the walk finds them, each under a provisional id (its place in the
/// walk's order); once all are parsed they are put in the list's order and their diagnostics'
/// ids follow. For [`ParseOutput::Ast`] the walk ends first, so that the trees kept have
/// their files' final ids.
pub fn parse_paths(
    paths: &[PathBuf],
    output: ParseOutput,
    validate: bool,
    options: &Options,
) -> std::io::Result<ParseReport> {
    let mut walked = Ok(());
    // The files' order, each file's key made as the walk finds it.
    let mut order = crate::source::PathOrder::default();
    let parsed = crate::parallel::parallel_as_found(
        |give| {
            let mut give_found = |path: PathBuf| {
                let at = order.len();
                order.push(&path);
                give((at, path));
            };
            walked = if output == ParseOutput::Ast {
                // The trees are kept: their spans get their files' final ids, which need the
                // whole list.
                crate::source::expand_paths(paths, &options.files)
                    .map(|list| list.into_iter().for_each(&mut give_found))
            } else {
                crate::source::expand_paths_each(paths, &mut give_found, &options.files)
            };
        },
        |(at, path): (usize, PathBuf)| -> std::io::Result<ParsedFile> {
            let id = FileId(u32::try_from(at).unwrap_or(u32::MAX));
            let bytes = crate::source::read_file(&path, "manifest", &options.files)?;
            Ok(parse_one(
                id,
                path.to_string_lossy().into(),
                bytes,
                output,
                validate,
            ))
        },
    );
    walked?;
    let order = order.finish_unique();
    let mut parsed: Vec<Option<std::io::Result<ParsedFile>>> =
        parsed.into_iter().map(Some).collect();
    let mut report = ParseReport {
        files: SourceMap::with_capacity(order.len()),
        diagnostics: Vec::new(),
        pn: Vec::new(),
        programs: Vec::new(),
    };
    // A file given twice (two paths that overlap) is reported once, at its first place.
    for at in order {
        let Some(file) = parsed.get_mut(at).and_then(Option::take) else {
            continue;
        };
        let file = file?;
        // The name is moved into the map, and copied only for a tree kept with it.
        let (name, program) = match file.program {
            Some(program) => (file.name.clone(), Some((file.name, program))),
            None => (file.name, None),
        };
        let id = report.files.add(name, file.text);
        let renumber = |span: &mut crate::span::Span| {
            if !span.is_none() {
                span.file = id;
            }
        };
        for mut d in file.diagnostics {
            d.for_each_span_mut(renumber);
            report.diagnostics.push(d);
        }
        report.pn.extend(file.pn);
        report.programs.extend(program);
    }
    diag::sort(&mut report.diagnostics);
    Ok(report)
}

fn parse_one(
    id: FileId,
    name: std::sync::Arc<str>,
    bytes: Vec<u8>,
    output: ParseOutput,
    validate: bool,
) -> ParsedFile {
    let (text, bad) = crate::source::decode(id, bytes);
    let mut file = ParsedFile {
        name,
        text,
        diagnostics: Vec::new(),
        pn: None,
        program: None,
    };
    if let Some(d) = bad {
        file.diagnostics.push(d);
        return file;
    }
    if !validate && output != ParseOutput::Ast {
        // Nothing needs a whole tree: each top-level statement is written (as PN) and freed
        // as soon as it is parsed, so a large manifest's tree is never held.
        let mut pn = (output == ParseOutput::Pn).then(ProgramPn::default);
        file.diagnostics = crate::parser::parse_file_statements(id, &file.text, &mut |statement| {
            if let Some(pn) = &mut pn {
                pn.statement(&statement);
            }
        });
        if !file.diagnostics.iter().any(Diagnostic::is_error) {
            file.pn = pn.map(ProgramPn::finish);
        }
        forget_text_unless_said(&mut file);
        return file;
    }
    let parsed = if validate {
        super::parse_and_validate(id, &file.text)
    } else {
        crate::parser::parse_file(id, &file.text)
    };
    file.diagnostics = parsed.diagnostics;
    forget_text_unless_said(&mut file);
    let clean = !file.diagnostics.iter().any(Diagnostic::is_error);
    match (parsed.program, output) {
        (Some(program), ParseOutput::Ast) => file.program = Some(program),
        (Some(program), ParseOutput::Pn) if clean => {
            let mut text = Vec::new();
            // Writing to memory cannot fail; the PN is ASCII-safe JSON.
            if crate::pn::write_program(&program, &mut text).is_ok() {
                file.pn = String::from_utf8(text).ok();
            }
        }
        // Nothing reads the tree again: it is freed on the core that made it.
        _ => {}
    }
    file
}

/// Only a file with something to say is shown again: the others' text is let go on the core
/// that read it, instead of being held to the end.
fn forget_text_unless_said(file: &mut ParsedFile) {
    if file.diagnostics.is_empty() {
        file.text = String::new();
    }
}
