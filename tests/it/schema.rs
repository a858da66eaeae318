//! The model's JSON Schema (`pbc schema`) against the model snapshots: the schema is valid draft
//! 2020-12, every model snapshot (`compile_*` in `snapshots/`) conforms to it, and every kind it
//! defines occurs in some snapshot, so neither side can drift without a test failing.

use puppet_bindings::lower::model::SCHEMA;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("the schema is JSON")
}

/// Every model snapshot: (file name, the model).
fn model_snapshots() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("snapshots/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("compile_") && n.ends_with(".snap"))
        .collect();
    names.sort();
    let models: Vec<(String, Value)> = names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(&name)).expect("snapshot");
            // An insta snapshot: a `---` header block, then the value.
            let body = text
                .splitn(3, "---\n")
                .nth(2)
                .unwrap_or_else(|| panic!("{name}: no snapshot header"));
            let model = serde_json::from_str(body)
                .unwrap_or_else(|e| panic!("{name}: the snapshot is not JSON: {e}"));
            (name, model)
        })
        .collect();
    assert!(models.len() >= 15, "only {} model snapshots", models.len());
    models
}

#[test]
fn schema_is_valid_draft_2020_12() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    jsonschema::draft202012::meta::validate(&schema)
        .unwrap_or_else(|e| panic!("not a valid draft 2020-12 schema: {e}"));
}

#[test]
fn every_model_snapshot_conforms() {
    let validator = jsonschema::draft202012::new(&schema()).expect("the schema compiles");
    let mut failures = Vec::new();
    for (name, model) in model_snapshots() {
        for error in validator.iter_errors(&model) {
            // A failed `oneOf` quotes the whole instance: the path is what locates it.
            let message: String = error.to_string().chars().take(300).collect();
            failures.push(format!("{name} at {}: {message}", error.instance_path()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The schema's `kind` constants and enums.
fn kinds_in_schema(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(kind) = map.get("properties").and_then(|p| p.get("kind")) {
                if let Some(k) = kind.get("const").and_then(Value::as_str) {
                    out.insert(k.to_string());
                }
                for k in kind
                    .get("enum")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    out.extend(k.as_str().map(str::to_string));
                }
            }
            map.values().for_each(|v| kinds_in_schema(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| kinds_in_schema(v, out)),
        _ => {}
    }
}

fn kinds_in_model(model: &Value, out: &mut BTreeSet<String>) {
    match model {
        Value::Object(map) => {
            out.extend(map.get("kind").and_then(Value::as_str).map(str::to_string));
            map.values().for_each(|v| kinds_in_model(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| kinds_in_model(v, out)),
        _ => {}
    }
}

#[test]
fn every_kind_of_the_schema_occurs_in_a_snapshot() {
    let mut defined = BTreeSet::new();
    kinds_in_schema(&schema(), &mut defined);
    assert!(defined.len() >= 40, "only {} kinds defined", defined.len());
    let mut seen = BTreeSet::new();
    for (_, model) in model_snapshots() {
        kinds_in_model(&model, &mut seen);
    }
    let missing: Vec<&String> = defined.difference(&seen).collect();
    assert!(missing.is_empty(), "kinds no snapshot shows: {missing:?}");
}

/// The schema rejects what the model never writes, so conformance above means something.
#[test]
fn schema_rejects_malformed_models() {
    let validator = jsonschema::draft202012::new(&schema()).expect("the schema compiles");
    let good = serde_json::json!({
        "format": "puppet-bindings-model",
        "version": 1,
        "bindings": [{
            "kind": "NamedBindings",
            "name": "x",
            "bindings": [{
                "kind": "Binding",
                "type": {"kind": "PIntegerType"},
                "name": "port",
                "override": false,
                "abstract": false,
                "multibind_id": null,
                "producer": {"kind": "ConstantProducerDescriptor", "value": 80},
                "producer_args": [],
                "origin": {"file": "x.pp", "line": 1, "column": 1}
            }],
            "origin": {"file": "x.pp", "line": 1, "column": 1}
        }]
    });
    assert!(validator.is_valid(&good));
    let binding = "/bindings/0/bindings/0";
    let broken: [(&str, Value); 6] = [
        ("/version", serde_json::json!(2)),
        (&format!("{binding}/kind"), serde_json::json!("Bindings")),
        (&format!("{binding}/abstract"), Value::Null),
        (
            &format!("{binding}/type/kind"),
            serde_json::json!("PIntType"),
        ),
        (&format!("{binding}/origin/line"), serde_json::json!(0)),
        (
            &format!("{binding}/origin/file"),
            serde_json::json!("<system>"),
        ),
    ];
    for (pointer, value) in broken {
        let mut model = good.clone();
        *model.pointer_mut(pointer).expect("pointer") = value;
        assert!(!validator.is_valid(&model), "{pointer} broken yet valid");
    }
    let mut extra = good.clone();
    extra["bindings"][0]["bindings"][0]["priority"] = serde_json::json!(1);
    assert!(!validator.is_valid(&extra), "unknown attribute accepted");
}

/// The answers document (`pbc lookup --format answers`, read by Puppet's Hiera backend in
/// src/puppet/pbc): its schema is valid draft 2020-12, and what pbc writes for every lookup tree
/// of the corpus with a factset (every key, from the tree and from its compiled model) conforms
/// to it, values, failed keys and all; each kind of answer and each rich-data type occurs.
#[test]
fn every_answers_document_conforms() {
    use puppet_bindings::inject::command::ANSWERS_SCHEMA;
    let schema: Value = serde_json::from_str(ANSWERS_SCHEMA).expect("the schema is JSON");
    jsonschema::draft202012::meta::validate(&schema)
        .unwrap_or_else(|e| panic!("not a valid draft 2020-12 schema: {e}"));
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let trees = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees");
    let mut dirs: Vec<_> = std::fs::read_dir(&trees)
        .expect("trees")
        .map(|e| e.expect("entry").path())
        .collect();
    dirs.sort();
    let model = std::env::temp_dir().join(format!("pbc-answers-{}.pbcm", std::process::id()));
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut documents = 0;
    for dir in dirs {
        let Some(facts) = std::fs::read_dir(dir.join("facts"))
            .ok()
            .and_then(|mut files| files.next())
            .map(|f| f.expect("entry").path())
        else {
            continue;
        };
        let run = |args: &[&str]| {
            std::process::Command::new(env!("CARGO_BIN_EXE_pbc"))
                .args(args)
                .current_dir(&dir)
                .output()
                .expect("pbc runs")
        };
        let facts = facts.to_string_lossy().into_owned();
        let compiled = run(&["compile", "--cache", "-o", &model.to_string_lossy(), "."]);
        let mut sources = vec![vec!["--facts", facts.as_str()]];
        if compiled.status.success() {
            sources.push(vec!["--facts", facts.as_str(), "--model"]);
        }
        for mut args in sources {
            let model_arg = model.to_string_lossy().into_owned();
            if args.last() == Some(&"--model") {
                args.push(&model_arg);
            }
            args.extend(["--all", "--format", "answers"]);
            let mut all = vec!["lookup"];
            all.extend(args);
            let out = run(&all);
            let text = String::from_utf8_lossy(&out.stdout);
            if text.is_empty() {
                // A tree that does not load answers nothing, with its errors on stderr.
                assert_ne!(out.status.code(), Some(0), "{}", dir.display());
                continue;
            }
            let document: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", dir.display()));
            documents += 1;
            if let Some(error) = validator.iter_errors(&document).next() {
                panic!(
                    "{} {all:?} at {}: {error}",
                    dir.display(),
                    error.instance_path()
                );
            }
            for answer in document["keys"].as_object().expect("keys").values() {
                seen.insert(match (&answer["found"], answer.get("error")) {
                    (Value::Bool(true), _) => "value".into(),
                    (_, Some(_)) => "error".into(),
                    _ => "not found".into(),
                });
                let mut stack = vec![&answer["value"]];
                while let Some(v) = stack.pop() {
                    match v {
                        Value::Array(items) => stack.extend(items),
                        Value::Object(map) => {
                            if let Some(Value::String(t)) = map.get("__ptype") {
                                seen.insert(t.clone());
                            }
                            stack.extend(map.values());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_file(&model);
    assert!(documents >= 20, "only {documents} answers documents");
    for kind in ["value", "error", "Sensitive", "Hash", "Regexp"] {
        assert!(seen.contains(kind), "no answer shows {kind}: {seen:?}");
    }
}
