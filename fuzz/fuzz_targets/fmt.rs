//! `pbc fmt`: no input may panic or hang the layout, and what it lays out must keep its meaning
//! (a refusal, `FORMAT_CHANGED_MEANING`, is a bug the fuzzer found), keep every comment in
//! order, and be laid out again unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::format::{comments, format_source, Formatted};
use puppet_bindings::span::FileId;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    match format_source(FileId(0), &src) {
        Formatted::Text(once) => {
            assert_eq!(comments(FileId(0), &src), comments(FileId(0), &once));
            match format_source(FileId(0), &once) {
                Formatted::Text(twice) => assert_eq!(twice, once, "laid out again"),
                other => panic!("the laid-out text: {other:?}"),
            }
        }
        Formatted::NotParsed(_) => {}
        Formatted::Refused(refusal) => panic!("{refusal:?}"),
    }
});
