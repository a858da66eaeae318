//! The lexer and parser, Puppet's validation, and every recursive pass over what they accept
//! (the AST's JSON, PN): no input may panic, hang or overflow the stack.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::span::FileId;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let parsed = puppet_bindings::parse_and_validate(FileId(0), &src);
    if let Some(program) = &parsed.program {
        let _ = puppet_bindings::pn::program_to_json(program);
    }
});
