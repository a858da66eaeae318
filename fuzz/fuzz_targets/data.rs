//! The readers of outside data: facts and ENC output (JSON and YAML: aliases, tags, nesting,
//! numbers), `hiera.yaml` (versions 2 and 3) and data files (with their interpolations), and
//! the bindings pbc makes of a data file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::ast::PathTest;
use puppet_bindings::data::{bind, files, hiera, yaml};
use puppet_bindings::load::facts::parse_data;
use puppet_bindings::span::{FileId, Span};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for yaml in [true, false] {
        if let Ok(v) = parse_data(text, yaml) {
            let _ = v.to_json();
        }
    }
    let categories = vec![
        "node".to_string(),
        "osfamily".to_string(),
        "common".to_string(),
    ];
    let known = hiera::Known {
        categories: &categories,
    };
    let _ = hiera::read(FileId(0), text, &known, true);
    let _ = files::check(FileId(0), text);
    if let Ok(Some(doc)) = yaml::parse(FileId(0), text) {
        // The file as the second of a level whose first file binds the same keys under
        // another path (the path tests and groups of keys).
        let found = |template: &str, stem: &str| {
            let expr = files::parse_string(FileId(0), template, Span::new(FileId(0), 0, 0), false)?;
            Some(bind::Found {
                applies: bind::Applies {
                    when: Some(("osfamily".into(), bind::WhenValue::Named("Debian".into()))),
                    test: PathTest {
                        path: template.into(),
                        template: expr,
                        file: stem.into(),
                    },
                },
                keys: bind::keys(&doc),
            })
        };
        let (Some(first), Some(second)) = (
            found("os/${operatingsystem}", "os/Ubuntu"),
            found("family/${osfamily}", "family/Debian"),
        ) else {
            return;
        };
        let program = bind::program(
            "module-hiera:/m/data/x.yaml",
            FileId(0),
            text,
            &doc,
            &[first, second],
            1,
        );
        let _ = puppet_bindings::validate::check_program(&program);
    }
});
