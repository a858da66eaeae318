//! `pbc check` of a small tree (a site and a bindings file): every rule, the composition
//! engine's analysis of every request, and the rendering of what it finds.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let report =
        puppet_bindings::check_sources(common::tree(data), &puppet_bindings::Options::default());
    let _ = puppet_bindings::diag::render_text(&report.files, &report.diagnostics);
});
