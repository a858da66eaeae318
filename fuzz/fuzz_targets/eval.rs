//! The evaluator on whatever parses: every statement evaluated with a small step budget,
//! against facts, with injection refused. No input may panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::eval::{Evaluator, NoInjection, TopScope, Value};
use puppet_bindings::span::FileId;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let Some(program) = puppet_bindings::parse_file(FileId(0), &src).program else {
        return;
    };
    let mut top = TopScope::default();
    top.set("fqdn", Value::string("n1.example.com"));
    let mut host = NoInjection::default();
    let mut ev = Evaluator::new(&top, &mut host).with_budget(20_000);
    for statement in &program.body {
        if let Ok(v) = ev.eval(statement) {
            let _ = v.to_json();
            let _ = v.to_string();
        }
    }
});
