//! `pbc lookup --all` on a small tree for one node: composition, every producer, multibinds,
//! `--explain`. The node's facts are fixed; the tree comes from the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::eval::Value;
use puppet_bindings::inject::{ForInjection, Injector};
use puppet_bindings::load::{environment, Request};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let origins = vec!["manifests/site.pp".into(), "bindings/default.pp".into()];
    let loaded = puppet_bindings::load_sources(
        common::tree(data),
        origins,
        &puppet_bindings::Options::default(),
    );
    if loaded.has_file_errors() {
        return;
    }
    let mut request = Request::default();
    for (k, v) in [("fqdn", "n1.example.com"), ("dc", "ams"), ("role", "web")] {
        request.facts.insert(k.into(), Value::string(v));
    }
    let Ok(selected) = environment::select(
        std::path::Path::new("/nonexistent"),
        None,
        &request,
        &Default::default(),
    ) else {
        return;
    };
    let model = loaded.tree_model(ForInjection);
    let Ok(mut injector) = Injector::new(&model, &selected, &request) else {
        return;
    };
    for key in injector.effective_keys() {
        let _ = injector.lookup_found_key(&key);
        let _ = injector.explain(&key);
    }
});
