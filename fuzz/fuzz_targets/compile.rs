//! `pbc compile` of a small tree: lowering to the model and its JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let origins = vec!["manifests/site.pp".into(), "bindings/default.pp".into()];
    let report = puppet_bindings::compile_sources(
        common::tree(data),
        origins,
        puppet_bindings::CompileMode::Tree,
        puppet_bindings::JsonLayout::Compact,
    );
    // The model is lowered as it is written.
    if let Some(model) = report.into_model() {
        let _ = model.into_text();
    }
});
