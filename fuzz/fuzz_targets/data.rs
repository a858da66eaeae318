//! The readers of facts and ENC output: JSON and YAML (aliases, tags, nesting, numbers).
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::load::facts::parse_data;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for yaml in [true, false] {
        if let Ok(v) = parse_data(text, yaml) {
            let _ = v.to_json();
        }
    }
});
