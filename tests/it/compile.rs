//! `pbc compile` over `corpus/compile/`: each file in `files/` is compiled on its own and each
//! directory in `trees/` as a whole tree; the model JSON is snapshotted. Every ARM-8 example of
//! the parse corpus compiles, except those whose check finds errors (listed). Output does not
//! depend on the order of the files.

use crate::common;

use common::{arm8_example_names, relative, snapshot_settings, sorted_dirs, ARM8_DIR};
use puppet_bindings::{
    compile_dir, compile_sources, compile_tree_files, keep_text, tree, CompileMode, JsonLayout,
    SourceInput,
};
use std::path::{Path, PathBuf};

/// Compiles `paths` and returns the model, or the rendered diagnostics when there is none.
fn compile(paths: &[PathBuf], root: Option<&Path>, mode: CompileMode) -> Result<String, String> {
    compile_laid_out(paths, root, mode, JsonLayout::Indented)
}

fn compile_laid_out(
    paths: &[PathBuf],
    root: Option<&Path>,
    mode: CompileMode,
    layout: JsonLayout,
) -> Result<String, String> {
    let files = tree::discover(paths, &Default::default()).expect("corpus is readable");
    let mut text = None;
    let report = compile_tree_files(
        &files,
        root,
        mode,
        layout,
        keep_text(&mut text),
        &Default::default(),
    )
    .expect("corpus is readable");
    model_or_findings(report, text)
}

/// The model's text, or the rendered findings when the check refused the files.
fn model_or_findings(
    report: puppet_bindings::CompileReport,
    text: Option<String>,
) -> Result<String, String> {
    let findings =
        puppet_bindings::diag::render_text(&report.check.files, &report.check.diagnostics);
    match report.written {
        Some(written) => {
            written.expect("a model is written to memory");
            Ok(text.expect("the sink kept the model"))
        }
        None => {
            assert!(text.is_none(), "a refused model is not handed to the sink");
            Err(findings)
        }
    }
}

/// `pbc compile DIR [--env NAME]`.
fn compile_site(dir: &Path, environment: Option<&str>) -> Result<String, String> {
    let mut text = None;
    let report = compile_dir(
        dir,
        environment,
        JsonLayout::Indented,
        keep_text(&mut text),
        &Default::default(),
    )
    .expect("corpus is readable");
    model_or_findings(report, text)
}

/// A site compiles one environment at a time, from the files that environment reads: its
/// manifest (categories, layers), bindingsdir and modulepath (the first module of a name wins).
#[test]
fn a_site_compiles_each_environment_from_its_own_files() {
    let dir = PathBuf::from("corpus/lookup/trees/environments");
    let summary = |environment: Option<&str>| -> Vec<String> {
        let model = compile_site(&dir, environment).expect("compiles");
        let doc: serde_json::Value = serde_json::from_str(&model).expect("JSON");
        let mut out = categories(&doc);
        for layer in doc["layers"]["layers"].as_array().expect("layers") {
            for b in layer["bindings"].as_array().expect("bindings") {
                out.push(format!(
                    "{}: {}",
                    layer["name"].as_str().unwrap_or("?"),
                    b["origin"]["file"].as_str().unwrap_or("?")
                ));
            }
        }
        out
    };
    let production = [
        "node",
        "data_center",
        "environment",
        "common",
        "site: master/bindings/default.pp",
        "modules: master/modules/ntp/bindings/default.pp",
        "modules: shared/modules/apache/bindings/default.pp",
        "puppet-default: <system>",
    ];
    assert_eq!(summary(None), production);
    assert_eq!(summary(Some("production")), production);
    assert_eq!(
        summary(Some("staging")),
        [
            "node",
            "environment",
            "common",
            "site: master/staging-bindings/default.pp",
            "modules: master/modules/ntp/bindings/default.pp",
            "modules: shared/modules/apache/bindings/default.pp",
            "puppet-default: <system>",
        ]
    );
    assert_eq!(
        summary(Some("feature_x")),
        [
            // The branch's site declares no categories: ARM-9's defaults (D10).
            "node",
            "operatingsystem",
            "osfamily",
            "environment",
            "common",
            "branch: branches/feature_x/bindings/default.pp",
            "modules: shared/modules/apache/bindings/default.pp",
            "modules: shared/modules/ntp/bindings/default.pp",
            "puppet-default: <system>",
        ]
    );
    let unknown = compile_site(&dir, Some("feature_y")).expect_err("unknown");
    assert!(unknown.contains("error[UNKNOWN_ENVIRONMENT]"), "{unknown}");
    let missing = compile_site(&dir, Some("retired")).expect_err("no envdir");
    assert!(missing.contains("error[ENVDIR_NOT_FOUND]"), "{missing}");
}

/// A model's effective categories, highest first.
fn categories(doc: &serde_json::Value) -> Vec<String> {
    doc["categories"]["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .map(|c| c["categorization"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// Writes `files` under a fresh directory in the target dir.
fn site(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("sites")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    root
}

/// The origins of every binding of the model, by layer.
fn origins(model: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(model).expect("JSON");
    let mut out = Vec::new();
    for layer in doc["layers"]["layers"].as_array().expect("layers") {
        for b in layer["bindings"].as_array().expect("bindings") {
            let file = b["origin"]["file"].as_str().unwrap_or("?");
            if file != "<system>" {
                out.push(format!("{}: {file}", layer["name"].as_str().unwrap_or("?")));
            }
        }
    }
    out
}

/// A file two layers include is in both, whole: `pbc compile` lowers a bindings file once, as
/// it parses it, and the second layer gets a copy.
#[test]
fn a_file_two_layers_include_is_in_both() {
    let root = site(
        "two_layers_one_file",
        &[
            (
                "manifests/site.pp",
                "site {\n  bindings => [\n    layer { 'high': include => 'confdir:/default' },\n    layer { 'low': include => 'confdir:/default' },\n  ]\n}\n",
            ),
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'a' to 1\n  bind 'b' to \"${::fqdn}-b\"\n  when node 'x' { bind 'a' to 2 }\n}\n",
            ),
        ],
    );
    let model = compile_site(&root, None).unwrap_or_else(|d| panic!("compiles:\n{d}"));
    let doc: serde_json::Value = serde_json::from_str(&model).expect("JSON");
    let block = |layer: &str| {
        doc["layers"]["layers"]
            .as_array()
            .expect("layers")
            .iter()
            .find(|l| l["name"] == layer)
            .map(|l| l["bindings"].clone())
            .unwrap_or_else(|| panic!("the layer {layer}"))
    };
    let (high, low) = (block("high"), block("low"));
    assert_eq!(high, low);
    assert_eq!(
        high[0]["bindings"].as_array().map(Vec::len),
        Some(3),
        "{high}"
    );
}

/// A directory `manifest` is every manifest in it; `undef` and `default` leave an attribute
/// at its default; a computed value that is not a path is an error at the attribute.
#[test]
fn manifest_directories_and_unset_attributes() {
    let root = site(
        "manifest_dir",
        &[
            (
                "environments.pp",
                "$unset = undef\nsite {\n  environment { 'production': manifest => 'conf.d', bindingsdir => $unset, modulepath => default }\n  environment { 'broken': modulepath => 1 + 1 }\n}\n",
            ),
            (
                "manifests/conf.d/categories.pp",
                "site { categories { node => $::fqdn, role => $::role } }\n",
            ),
            (
                "manifests/conf.d/layers.pp",
                "site { bindings => [layer { 'mine': include => 'confdir:/default' }, layer { 'modules': include => 'module:/*::default' }] }\n",
            ),
            ("bindings/default.pp", "bindings default {\n  when role 'web' { bind 'x' to 1 }\n}\n"),
            ("modules/m/bindings/default.pp", "bindings m::default {\n  bind 'm::y' to 2\n}\n"),
        ],
    );
    let model = compile_site(&root, None).unwrap_or_else(|d| panic!("compiles:\n{d}"));
    assert_eq!(
        origins(&model),
        [
            "mine: bindings/default.pp",
            "modules: modules/m/bindings/default.pp"
        ]
    );
    let doc: serde_json::Value = serde_json::from_str(&model).expect("JSON");
    assert_eq!(categories(&doc), ["node", "role", "environment", "common"]);
    let broken = compile_site(&root, Some("broken")).expect_err("not a path");
    assert!(broken.contains("error[EVAL_TYPE_ERROR]"), "{broken}");
    assert!(broken.contains("`modulepath` is a path"), "{broken}");
}

/// A dynamic `production` directory is production when environments.pp declares none; the
/// implied one (in `$confdir`) only when neither has it.
#[test]
fn a_dynamic_production_wins_over_the_implied_one() {
    let files = [
        (
            "environments.pp",
            "site { dynamic_environments { \"${confdir}/envs\": } }\n",
        ),
        (
            "bindings/default.pp",
            "bindings default { bind 'x' to 'confdir' }\n",
        ),
        (
            "envs/production/bindings/default.pp",
            "bindings default { bind 'x' to 'branch' }\n",
        ),
    ];
    let root = site("dynamic_production", &files);
    let model = compile_site(&root, None).expect("compiles");
    assert_eq!(
        origins(&model),
        ["site: envs/production/bindings/default.pp"]
    );
    let root = site("implied_production", &files[..2]);
    let model = compile_site(&root, None).expect("compiles");
    assert_eq!(origins(&model), ["site: bindings/default.pp"]);
}

#[test]
fn compile_files() {
    snapshot_settings().bind(|| {
        insta::glob!("../../corpus/compile", "files/*.pp", |path| {
            let rel = relative(path);
            let model = compile(std::slice::from_ref(&rel), None, CompileMode::Files)
                .unwrap_or_else(|d| panic!("{} must compile:\n{d}", rel.display()));
            // `--compact` writes the same model on one line (as serde_json writes the
            // indented model's values, their order and numbers kept).
            let compact = compile_laid_out(
                std::slice::from_ref(&rel),
                None,
                CompileMode::Files,
                JsonLayout::Compact,
            )
            .unwrap_or_else(|d| panic!("{} must compile:\n{d}", rel.display()));
            let indented: serde_json::Value = serde_json::from_str(&model).expect("JSON");
            let expected = serde_json::to_string(&indented).expect("writes") + "\n";
            assert_eq!(compact, expected, "{}", rel.display());
            insta::assert_snapshot!(model);
        });
    });
}

#[test]
fn compile_trees() {
    for dir in sorted_dirs("corpus/compile/trees") {
        let rel = relative(&dir);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let model = compile_site(&rel, None)
            .unwrap_or_else(|d| panic!("{} must compile:\n{d}", rel.display()));
        snapshot_settings().bind(|| insta::assert_snapshot!(format!("compile_tree@{name}"), model));
    }
}

/// The sample tree places each bindings file in the layer its site names, and the excluded
/// module nowhere.
#[test]
fn sample_tree_layers() {
    let dir = PathBuf::from("corpus/compile/trees/sample");
    let model = compile_site(&dir, None).expect("the sample compiles");
    let doc: serde_json::Value = serde_json::from_str(&model).expect("JSON");
    let layers: Vec<(String, Vec<String>)> = doc["layers"]["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(|l| {
            let names = l["bindings"]
                .as_array()
                .expect("bindings")
                .iter()
                .map(|b| b["name"].as_str().unwrap_or("?").to_string())
                .collect();
            (l["name"].as_str().unwrap_or("?").to_string(), names)
        })
        .collect();
    let want: Vec<(String, Vec<String>)> = [
        ("site", &["default"][..]),
        ("roles", &["roles::web"]),
        ("modules", &["apache::default", "ntp::default"]),
        ("puppet-default", &["puppet::default"]),
    ]
    .iter()
    .map(|(l, b)| (l.to_string(), b.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(layers, want);
    assert_eq!(
        categories(&doc),
        ["node", "data_center", "environment", "common"]
    );
}

/// Two runs, the second with the files in reverse order: byte-identical models.
#[test]
fn output_does_not_depend_on_file_order() {
    let dir = PathBuf::from("corpus/compile/trees/sample");
    let files = tree::discover(std::slice::from_ref(&dir), &Default::default()).expect("readable");
    let run = |order: Vec<&tree::TreeFile>| {
        let inputs = order
            .iter()
            .map(|f| SourceInput {
                name: f.display.clone(),
                role: f.role.clone(),
                bytes: std::fs::read(&f.path).expect("readable").into(),
            })
            .collect();
        let origins = order
            .iter()
            .map(|f| {
                f.path
                    .strip_prefix(&dir)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        let mut text = None;
        let report = compile_sources(
            inputs,
            origins,
            CompileMode::Tree,
            JsonLayout::Indented,
            keep_text(&mut text),
            &Default::default(),
        );
        assert!(report.written.is_some_and(|w| w.is_ok()), "compiles");
        text.expect("the sink kept the model")
    };
    let forward = run(files.iter().collect());
    let backward = run(files.iter().rev().collect());
    assert_eq!(forward, backward);
}

/// Every ARM-8 example compiles, but for those the check rejects (their errors are listed in
/// `tests/it/check.rs`); each model is snapshotted.
#[test]
fn arm8_examples_compile() {
    let rejected = ["bindings_names.pp", "classes_parameters.pp", "variables.pp"];
    let dir = PathBuf::from(ARM8_DIR);
    let names = arm8_example_names();
    let mut failed = Vec::new();
    for name in &names {
        match compile(&[dir.join(name)], None, CompileMode::Files) {
            Ok(model) => snapshot_settings()
                .bind(|| insta::assert_snapshot!(format!("compile_arm8@{name}"), model)),
            Err(_) => failed.push(name.as_str()),
        }
    }
    assert_eq!(failed, rejected);
}

/// How deep the model's own structure nests: values that embed a literal or a PN expression
/// count as one level, whatever they hold.
fn structural_depth(v: &serde_json::Value) -> usize {
    const EMBEDDED: &[&str] = &["value", "expression", "source", "from", "to", "title"];
    match v {
        serde_json::Value::Object(map) => {
            1 + map
                .iter()
                .map(|(k, v)| {
                    if EMBEDDED.contains(&k.as_str()) || k == "arguments" {
                        1 + usize::from(k == "arguments")
                    } else {
                        structural_depth(v)
                    }
                })
                .max()
                .unwrap_or(0)
        }
        serde_json::Value::Array(items) => {
            1 + items.iter().map(structural_depth).max().unwrap_or(0)
        }
        _ => 0,
    }
}

/// The deepest bindings the check accepts (32 `when` levels, a 16-level declared type, the
/// longest producer chain, a literal deeper than any type may be) give a model whose structure
/// nests within `MAX_DEPTH`; the inferred type of the deep literal is cut at 16 levels.
#[test]
fn model_nesting_stays_within_the_limit() {
    use puppet_bindings::lower::model::{MAX_DEPTH, MAX_TYPE_NESTING, MAX_WHEN_NESTING};
    let deepest_type = format!(
        "{}String{}",
        "Array[".repeat(MAX_TYPE_NESTING - 1),
        "]".repeat(MAX_TYPE_NESTING - 1)
    );
    let mut src = String::from("bindings default {\n");
    for level in 0..MAX_WHEN_NESTING {
        src.push_str(&format!("when level{level} on {{\n"));
    }
    src.push_str(&format!(
        "bind {deepest_type}, 'deepest' to optional producer Type[My::Producer]\n\
         bind 'literal' to {}1{}\n\
         bind 'opt' to 1 {{ transformer => |$x| {{ $x }} }}\n",
        "[".repeat(40),
        "]".repeat(40)
    ));
    src.push_str(&"}\n".repeat(MAX_WHEN_NESTING + 1));

    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("deepest_tree");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("bindings")).expect("temp dir");
    std::fs::write(root.join("bindings/default.pp"), src).expect("write");
    let model = compile(std::slice::from_ref(&root), Some(&root), CompileMode::Tree)
        .unwrap_or_else(|d| panic!("the deepest accepted bindings must compile:\n{d}"));
    let doc: serde_json::Value = serde_json::from_str(&model).expect("JSON");
    let depth = structural_depth(&doc);
    assert!(
        depth > 2 * MAX_WHEN_NESTING + MAX_TYPE_NESTING,
        "the test does not reach deep: {depth}"
    );
    assert!(depth <= MAX_DEPTH, "the model nests {depth} levels");

    // The deep literal is kept whole, under an inferred type cut to the limit.
    let literal = find_binding(&doc, "literal").expect("the literal binding");
    assert_eq!(structural_depth(&literal["type"]), MAX_TYPE_NESTING);
    assert_eq!(
        value_depth(&literal["producer"]["value"]),
        40,
        "{}",
        literal["producer"]
    );
}

/// The first `Binding` named `name`, depth first.
fn find_binding<'a>(v: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    match v {
        serde_json::Value::Object(map) => {
            if map.get("kind").and_then(|k| k.as_str()) == Some("Binding")
                && map.get("name").and_then(|n| n.as_str()) == Some(name)
            {
                return Some(v);
            }
            map.values().find_map(|v| find_binding(v, name))
        }
        serde_json::Value::Array(items) => items.iter().find_map(|v| find_binding(v, name)),
        _ => None,
    }
}

fn value_depth(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Array(items) => 1 + items.iter().map(value_depth).max().unwrap_or(0),
        serde_json::Value::Object(map) => 1 + map.values().map(value_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The cache `pbc compile --cache` writes holds the whole model: read back in full, every corpus
/// tree's model is the JSON model, object for object (what `pbc lookup --model` reads from a
/// cache is then the model; which records a lookup needs is tested against the tree by
/// `tests/it/lookup.rs`).
#[test]
fn the_cache_holds_the_whole_model() {
    use puppet_bindings::lower::cache::{write, Cache, Needed};
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cache-round-trip");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let mut compared = 0;
    for dir in sorted_dirs("corpus/compile/trees")
        .into_iter()
        .chain(sorted_dirs("corpus/lookup/trees"))
    {
        let Ok(json) = compile_site(&dir, None) else {
            continue;
        };
        let cache = scratch.join(format!("{compared}.pbcm"));
        std::fs::write(&cache, write(&json).expect("indexes")).expect("written");
        let mut opened = Cache::open(&cache).expect("opens");
        let whole = opened.document(&Needed::All).expect("reads");
        let back = serde_json::to_value(&whole).expect("serializes");
        let original: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert!(back == original, "{}", dir.display());
        compared += 1;
    }
    assert!(compared >= 12, "{compared}");
}

/// `pbc compile` judges a tree's layers on the model it writes (lowered once for both), and
/// `pbc check` on a model of its own: on every tree of the corpus, both report the same
/// findings, whether or not the files have errors of their own (a tree whose file has an
/// error still gets its layers judged).
#[test]
fn compile_finds_what_check_finds() {
    let mut judged_with_file_errors = 0;
    for tree in [
        "corpus/check/trees",
        "corpus/compile/trees",
        "corpus/lookup/trees",
    ]
    .iter()
    .flat_map(|d| sorted_dirs(d))
    {
        // Each walks the tree itself: the links a walk skips are reported by what follows it.
        let discover = || {
            tree::discover(std::slice::from_ref(&tree), &Default::default())
                .expect("corpus is readable")
        };
        let checked = puppet_bindings::check_tree_files(&discover(), &Default::default())
            .expect("corpus is readable");
        let files = discover();
        let mut text = None;
        let compiled = compile_tree_files(
            &files,
            Some(&tree),
            CompileMode::Tree,
            JsonLayout::Indented,
            keep_text(&mut text),
            &Default::default(),
        )
        .expect("corpus is readable");
        let render = |r: &puppet_bindings::CheckReport| {
            puppet_bindings::diag::render_text(&r.files, &r.diagnostics)
        };
        assert_eq!(
            render(&compiled.check),
            render(&checked),
            "{}: compile and check find different things",
            tree.display()
        );
        let codes = |r: &puppet_bindings::CheckReport| -> Vec<&'static str> {
            r.diagnostics.iter().map(|d| d.code).collect()
        };
        if codes(&checked).contains(&"MISSING_BINDINGS")
            && codes(&checked).contains(&"CONFLICTING_BINDINGS")
        {
            judged_with_file_errors += 1;
        }
        assert_eq!(compiled.written.is_some(), text.is_some());
    }
    assert!(
        judged_with_file_errors > 0,
        "a tree has both an error the check finds in its files and one the layers' judgement finds"
    );
}

/// The injector's code model, which `pbc compile` writes a tree from, serializes byte for byte
/// as the model of embedded JSON does, for every kind of literal and expression.
#[test]
fn the_code_model_is_written_as_the_json_model() {
    let source = r#"bindings default {
  bind 'text' to "tab\there \u{1F600} \"quoted\" back\\slash"
  bind 'control' to "bell\u{7}"
  bind 'integers' to [0, -1, 0x1F, 0777, 9223372036854775807]
  bind 'floats' to [1.5, -0.0, 1e20, 2.5e-7, 3.0]
  bind 'float' to 1e20
  bind 'negative' to -0.0
  bind 'integer' to -42
  bind 'nested' to { 'a' => [true, false, undef], 'b' => { 'c' => 'd' }, 1 => 'one' }
  bind 'empty' to []
  bind 'nothing' to undef
  bind 'yes' to true
  bind 'template' to "${::fqdn}-web"
  bind 'computed' to 1 + 2
  bind 'called' to $facts['os']['family'].downcase
  bind 'typed' to Integer[1, 5]
  when node 'Web.Example.COM' { bind 'text' to 'node' }
  bind 'fact' to $::osfamily
  bind 'transformed' to 1 { transformer => |$x| { $x + 1 } }
}
"#;
    let inputs = || {
        vec![SourceInput {
            name: "bindings/default.pp".into(),
            role: tree::FileRole::Bindings {
                expected_name: "default".into(),
                module: None,
            },
            bytes: source.as_bytes().to_vec().into(),
        }]
    };
    let origins = vec!["bindings/default.pp".to_string()];
    // `pbc compile` of a tree lowers each bindings file as it is parsed and frees its tree,
    // keeping copies of the code it embeds: the same model.
    let loaded = puppet_bindings::load_sources(inputs(), origins.clone(), &Default::default());
    assert!(!loaded.has_errors(), "the bindings check");
    let as_json = loaded.tree_model(puppet_bindings::lower::PnJson);
    for (layout, written) in [
        (
            JsonLayout::Indented,
            serde_json::to_string_pretty(&as_json).expect("writes"),
        ),
        (
            JsonLayout::Compact,
            serde_json::to_string(&as_json).expect("writes"),
        ),
    ] {
        let mut compiled = None;
        let report = compile_sources(
            inputs(),
            origins.clone(),
            CompileMode::Tree,
            layout,
            keep_text(&mut compiled),
            &Default::default(),
        );
        assert!(report.written.is_some_and(|w| w.is_ok()), "compiles");
        assert_eq!(
            compiled.as_deref(),
            Some(format!("{written}\n").as_str()),
            "{layout:?}"
        );
    }
    let as_code = loaded.tree_model(puppet_bindings::eval::code::ForInjection);
    for (json, code) in [
        (
            serde_json::to_string(&as_json).expect("writes"),
            serde_json::to_string(&as_code).expect("writes"),
        ),
        (
            serde_json::to_string_pretty(&as_json).expect("writes"),
            serde_json::to_string_pretty(&as_code).expect("writes"),
        ),
    ] {
        assert_eq!(code, json);
        assert!(json.contains(r#""tab\there"#), "{json}");
    }
}

/// The model `pbc compile` writes of a tree, each bindings file lowered as it is parsed and its
/// tree freed, is in both layouts byte for byte the model lowered from the whole programs, as
/// serde writes it: every corpus tree, and one of 300 modules.
#[test]
fn a_tree_model_is_the_model_of_the_whole_programs() {
    let generated = tempfile::tempdir().expect("a temporary directory");
    let root = generated.path();
    std::fs::create_dir_all(root.join("bindings")).expect("writable");
    std::fs::write(
        root.join("bindings/default.pp"),
        "bindings default {\n  bind 'site' to \"tab\\there\"\n}\n",
    )
    .expect("writable");
    for m in 0..300 {
        let dir = root.join(format!("modules/m{m}/bindings"));
        std::fs::create_dir_all(&dir).expect("writable");
        let text = format!(
            "bindings m{m}::default {{\n  bind 'm{m}::a' to [{m}, 'x', {{ 'k' => true }}]\n  \
             when node 'n{m}' {{ bind Integer, 'm{m}::b' to {m} }}\n  bind 'm{m}::c' to \"${{::fqdn}}-{m}\"\n}}\n"
        );
        std::fs::write(dir.join("default.pp"), text).expect("writable");
    }
    let mut trees: Vec<PathBuf> = [
        "corpus/check/trees",
        "corpus/compile/trees",
        "corpus/lookup/trees",
    ]
    .iter()
    .flat_map(|d| sorted_dirs(d))
    .collect();
    trees.push(root.to_path_buf());
    let mut written = 0;
    for tree in &trees {
        let files = tree::discover(std::slice::from_ref(tree), &Default::default())
            .expect("corpus is readable");
        let loaded = puppet_bindings::load_tree_files(&files, Some(tree), &Default::default())
            .expect("readable");
        if loaded.has_errors() {
            continue;
        }
        let model = loaded.tree_model(puppet_bindings::lower::PnJson);
        for (layout, serde_text) in [
            (
                JsonLayout::Indented,
                serde_json::to_string_pretty(&model).expect("writes"),
            ),
            (
                JsonLayout::Compact,
                serde_json::to_string(&model).expect("writes"),
            ),
        ] {
            let mut text = None;
            let report = compile_tree_files(
                &files,
                Some(tree),
                CompileMode::Tree,
                layout,
                keep_text(&mut text),
                &Default::default(),
            )
            .expect("readable");
            assert!(report.written.is_some_and(|w| w.is_ok()));
            assert_eq!(
                text.as_deref(),
                Some(format!("{serde_text}\n").as_str()),
                "{} ({layout:?})",
                tree.display()
            );
            // A sink without a draft (standard output) is written once the layers are
            // judged, its blocks spelled on every core.
            let mut after = Vec::new();
            let report = compile_tree_files(
                &files,
                Some(tree),
                CompileMode::Tree,
                layout,
                |_: &puppet_bindings::CheckReport,
                 _: usize,
                 model: puppet_bindings::ModelWriter| {
                    model.write_to(&mut after)
                },
                &Default::default(),
            )
            .expect("readable");
            assert!(report.written.is_some_and(|w| w.is_ok()));
            assert!(
                after == format!("{serde_text}\n").as_bytes(),
                "{} ({layout:?}, written after the judgement)",
                tree.display()
            );
            written += 1;
        }
        if tree == root {
            let blocks: usize = model.layers.layers.iter().map(|l| l.bindings.len()).sum();
            assert!(blocks > 300, "{blocks} blocks");
        }
    }
    assert!(written > 40, "{written} models written");
}
