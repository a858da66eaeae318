//! `pbc lookup --model` on any bytes: the JSON model reader (nesting counted first, shapes,
//! embedded PN read back) and the cache reader (tables, records, the closure of what a key
//! needs), then every key of what reads looked up and explained.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::eval::Value;
use puppet_bindings::inject::Injector;
use puppet_bindings::load::Request;
use puppet_bindings::lower::cache::{Cache, Needed};
use puppet_bindings::lower::read;

fn answer(model: &read::ReadModel) {
    let mut request = Request::default();
    for (k, v) in [
        ("fqdn", "n1.example.com"),
        ("dc", "ams"),
        ("osfamily", "Debian"),
    ] {
        request.facts.insert(k.into(), Value::string(v));
    }
    let document = model.document();
    let Ok(mut injector) = Injector::for_environment(
        &document,
        None,
        model.environment().to_string(),
        "the model",
        &request,
    ) else {
        return;
    };
    for key in injector.effective_keys().into_iter().take(64) {
        let _ = injector.lookup_found_key(&key);
        let _ = injector.explain(&key);
    }
}

fuzz_target!(|data: &[u8]| {
    if Cache::is_cache(data) {
        let path = std::env::temp_dir().join(format!("pbc-fuzz-model-{}", std::process::id()));
        if std::fs::write(&path, data).is_err() {
            return;
        }
        if let Ok(mut cache) = Cache::open(&path) {
            for needed in [cache.needed(&["a".into(), "b::c".into()]), Ok(Needed::All)] {
                let Ok(needed) = needed else { continue };
                if let Ok(doc) = cache.document(&needed) {
                    if let Ok(model) = read::from_document("fuzz", doc) {
                        answer(&model);
                    }
                }
            }
        }
        let _ = std::fs::remove_file(&path);
    } else if let Ok(model) = read::read("fuzz", data) {
        answer(&model);
    }
});
