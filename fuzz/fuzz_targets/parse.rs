//! The lexer and parser, Puppet's validation, and every recursive pass over what they accept
//! (the AST's JSON, PN): no input may panic, hang or overflow the stack. `pbc parse`'s way of
//! taking statements as they are parsed must give the same diagnostics and the same PN, and a
//! large file's pieces (cut before definition lines, here at every one however small the
//! input) must give the whole file's program whenever they are trusted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::span::FileId;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let parsed = puppet_bindings::parse_and_validate(FileId(0), &src);
    let whole = parsed
        .program
        .as_ref()
        .map(puppet_bindings::pn::program_to_json);
    let mut pn = puppet_bindings::pn::ProgramPn::default();
    let found = puppet_bindings::parse_file_statements(FileId(0), &src, &mut |s| pn.statement(&s));
    let errors = found.iter().any(|d| d.is_error());
    assert_eq!(errors, whole.is_none(), "the same verdict");
    if let Some(whole) = &whole {
        assert_eq!(&pn.finish(), whole, "the same PN");
    }
    let lines: Vec<usize> = puppet_bindings::parser::definition_lines(&src)
        .into_iter()
        .filter(|&l| l > 0)
        .take(8)
        .collect();
    if lines.is_empty() {
        return;
    }
    let plain = puppet_bindings::parse_file(FileId(0), &src);
    let cuts = std::iter::once(lines.clone()).chain(lines.iter().map(|&l| vec![l]));
    for cut in cuts {
        if let Some(program) = puppet_bindings::parser::parse_cut_at(FileId(0), &src, &cut) {
            assert!(plain.diagnostics.is_empty(), "pieces trusted where the file has errors");
            // Debug output holds every span too.
            assert_eq!(
                format!("{:?}", plain.program),
                format!("{:?}", Some(program)),
                "pieces cut at {cut:?} give the whole file's program"
            );
        }
    }
});
