//! `pbc compile` of a small tree: lowering to the model and its JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let origins = vec!["manifests/site.pp".into(), "bindings/default.pp".into()];
    // The model is lowered once, judged, and written to memory when the check allows it.
    let mut text = None;
    let report = puppet_bindings::compile_sources(
        common::tree(data),
        origins,
        puppet_bindings::CompileMode::Tree,
        puppet_bindings::JsonLayout::Compact,
        puppet_bindings::keep_text(&mut text),
        &puppet_bindings::Options::default(),
    );
    assert_eq!(report.written.is_some(), text.is_some());
});
