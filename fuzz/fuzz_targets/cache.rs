//! `pbc lookup --model CACHE` on a cache whose body (everything after the checksum) is any
//! bytes, sealed with the right checksum so that the structural checks behind it are what is
//! reached: the header, the key, name and reference tables, the record bounds and bodies, the
//! Hiera levels' files, the closure of what a key needs, and the document rebuilt from them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::lower::cache::{sealed, Cache, Needed};
use puppet_bindings::lower::read;

fuzz_target!(|body: &[u8]| {
    let path = std::env::temp_dir().join(format!("pbc-fuzz-cache-{}", std::process::id()));
    if std::fs::write(&path, sealed(body)).is_err() {
        return;
    }
    if let Ok(mut cache) = Cache::open(&path) {
        for needed in [cache.needed(&["a".into(), "b::c".into()]), Ok(Needed::All)] {
            let Ok(needed) = needed else { continue };
            if let Ok(doc) = cache.document(&needed) {
                let _ = read::from_document("fuzz", doc);
            }
        }
    }
    let _ = std::fs::remove_file(&path);
});
