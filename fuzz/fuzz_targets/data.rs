//! The readers of outside data: facts and ENC output (JSON and YAML: aliases, tags, nesting,
//! numbers), `hiera.yaml` (versions 2, 3 and 5) and data files (with their interpolations),
//! the bindings pbc makes of a data file, and Hiera 5's pure parts: globs (the first two
//! lines as pattern and path), interpolation, every merge strategy over the elements of a
//! JSON array, and `convert_to` (the first line as the type, the rest as values); and
//! hiera-eyaml's values: the input as a PKCS7 block's bytes, and as a string whose `ENC[...]`
//! blocks are found, decoded and opened with the corpus's test key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_bindings::ast::PathTest;
use puppet_bindings::data::eyaml::{self, PrivateKey};
use puppet_bindings::data::merge::{merge_lookup, ruby_text, Merge};
use puppet_bindings::data::{bind, files, glob, hiera, interpolation, yaml};
use puppet_bindings::eval::convert::ConvertTo;
use puppet_bindings::eval::Value;
use puppet_bindings::load::facts::parse_data;
use puppet_bindings::span::{FileId, Span};

static KEY: std::sync::OnceLock<Option<PrivateKey>> = std::sync::OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let key = KEY.get_or_init(|| {
        PrivateKey::from_pem(include_str!(
            "../../corpus/lookup/trees/eyaml/keys/private_key.pkcs7.pem"
        ))
        .ok()
    });
    if let Some(key) = key {
        let _ = eyaml::open(data, key);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(key) = key {
        let _ = eyaml::is_encrypted(text);
        let _ = eyaml::decrypt_string(text, key);
    }
    for yaml in [true, false] {
        if let Ok(v) = parse_data(text, yaml) {
            let _ = v.to_json();
        }
    }
    // A glob on its first line, the files of a tree on the others: Ruby's walk over them,
    // within its limits.
    let mut lines = text.lines();
    if let Some(pattern) = lines.next() {
        let paths: Vec<&str> = lines.collect();
        if let Some(path) = paths.first() {
            let _ = glob::matches_name(pattern, path);
        }
        let _ = glob::check(&[pattern.to_string()]);
        let listed = glob::Listed::new(paths.iter().copied());
        let mut tree = &listed;
        let _ = glob::Globber::new(&mut tree).glob(pattern);
    }
    let _ = interpolation::parse(text, true);
    let _ = interpolation::parse(text, false);
    if let Ok(Value::Array(items)) = parse_data(text, false) {
        let strategies = [
            Value::string("first"),
            Value::string("unique"),
            Value::string("hash"),
            Value::string("deep"),
            Value::hash(
                [
                    ("strategy", Value::string("deep")),
                    ("knockout_prefix", Value::string("--")),
                    ("sort_merged_arrays", Value::Boolean(true)),
                    ("merge_hash_arrays", Value::Boolean(true)),
                ]
                .into_iter()
                .map(|(k, v)| (Value::string(k), v))
                .collect(),
            ),
        ];
        for s in &strategies {
            let Ok(merge) = Merge::from_value(s) else {
                continue;
            };
            let found = merge_lookup(
                &merge,
                &items,
                &mut |v: &Value| Ok(Some(v.clone())),
                puppet_bindings::span::Span::NONE,
            );
            if let Ok(Some(v)) = found {
                let _ = ruby_text(&v);
            }
        }
    }
    // `convert_to`: the first line the type, the rest a JSON array of values (its first two
    // also tried as `new`'s arguments).
    if let Some((first, rest)) = text.split_once('\n') {
        if let Ok(Value::Array(items)) = parse_data(rest, false) {
            let option = Value::array(
                std::iter::once(Value::string(first))
                    .chain(items.iter().take(2).cloned())
                    .collect(),
            );
            for c in [Value::string(first), option]
                .iter()
                .filter_map(|o| ConvertTo::from_option(o).ok())
            {
                for v in items.iter() {
                    if let Ok(converted) = c.apply(v.clone()) {
                        let _ = converted.to_string();
                    }
                }
            }
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
