//! `pbc lookup` over `corpus/lookup/trees/*/`: each tree has a `requests` file, one command
//! line per line (flags and keys, run by the `pbc` binary in the tree's directory, which is
//! the default tree). Every request's status, stdout and stderr are snapshotted per tree,
//! after what `pbc check .` says of the tree: the two must tell one story (D18).

use crate::common;

use common::{copy_tree, snapshot_settings, sorted_dirs};
use std::process::Command;

#[test]
fn lookup_trees() {
    for dir in sorted_dirs("corpus/lookup/trees") {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let requests = std::fs::read_to_string(dir.join("requests"))
            .unwrap_or_else(|e| panic!("{}/requests: {e}", dir.display()));
        let mut out = String::new();
        let check = std::iter::once(("check", "."));
        let lookups = requests
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| ("lookup", l));
        for (command, line) in check.chain(lookups) {
            let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
                .arg(command)
                .args(line.split_whitespace())
                .current_dir(&dir)
                .output()
                .expect("pbc runs");
            let (stdout, stderr) = (
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr),
            );
            out.push_str(&format!(
                "$ pbc {command} {line}\nstatus: {}\n{}{}\n",
                run.status.code().unwrap_or(-1),
                if stdout.is_empty() {
                    String::new()
                } else {
                    format!("--- stdout\n{stdout}")
                },
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!("--- stderr\n{stderr}")
                },
            ));
        }
        snapshot_settings().bind(|| insta::assert_snapshot!(format!("lookup@{name}"), out));
    }
}

/// Runs `pbc` in `dir`: status and stdout.
fn pbc_in(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let (status, stdout, _) = pbc_full(dir, args);
    (status, stdout)
}

/// `--nodes FACTSDIR` gives each node exactly what a lookup of that node alone gives: on every
/// corpus tree with a factsets directory, every node's `--all` values, and its status.
#[test]
fn every_node_at_once_answers_as_each_node_alone() {
    let mut compared = 0;
    for dir in sorted_dirs("corpus/lookup/trees") {
        if !dir.join("facts").is_dir() {
            continue;
        }
        let (status, lines) = pbc_in(&dir, &["lookup", "--nodes", "facts", "--all"]);
        let lines: Vec<serde_json::Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line per node"))
            .collect();
        let mut any_failed = false;
        for line in &lines {
            let node = line["node"].as_str().expect("node");
            let file = ["json", "yaml", "yml"]
                .iter()
                .map(|ext| format!("facts/{node}.{ext}"))
                .find(|f| dir.join(f).is_file())
                .expect("the node's facts");
            let (alone_status, alone) = pbc_in(&dir, &["lookup", "--facts", &file, "--all"]);
            let failed = !line["errors"].as_object().expect("errors").is_empty();
            any_failed |= failed;
            assert_eq!(
                alone_status != 0,
                failed,
                "{}: {node}: {line}",
                dir.display()
            );
            if alone_status == 0 {
                let alone: serde_json::Value = serde_json::from_str(&alone).expect("JSON");
                assert_eq!(line["values"], alone, "{}: {node}", dir.display());
            }
            compared += 1;
        }
        assert_eq!(status, i32::from(any_failed), "{}", dir.display());
    }
    assert!(compared >= 20, "only {compared} nodes compared");
}

/// `--all` finds each key by its place in the index, a named key by its name: both give the
/// same value. On every corpus tree, for no facts and for each factset, every key of `--all`
/// (but typed keys, which a command line cannot name) is looked up by name.
#[test]
fn every_key_of_all_answers_as_the_key_asked_by_name() {
    let mut compared = 0;
    for dir in sorted_dirs("corpus/lookup/trees") {
        let mut requests: Vec<Vec<String>> = vec![Vec::new()];
        if let Ok(facts) = std::fs::read_dir(dir.join("facts")) {
            let mut files: Vec<String> = facts
                .filter_map(|e| e.ok())
                .map(|e| format!("facts/{}", e.file_name().to_string_lossy()))
                .collect();
            files.sort();
            requests.extend(files.into_iter().map(|f| vec!["--facts".to_string(), f]));
        }
        for request in requests {
            let with = |more: &[&str]| -> Vec<String> {
                let mut args: Vec<String> = vec!["lookup".into()];
                args.extend(request.iter().cloned());
                args.extend(more.iter().map(|s| s.to_string()));
                args
            };
            let all_args = with(&["--all"]);
            let args: Vec<&str> = all_args.iter().map(String::as_str).collect();
            let (status, all) = pbc_in(&dir, &args);
            if status != 0 {
                continue;
            }
            let all: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&all).expect("--all prints one JSON object");
            let names: Vec<&str> = all
                .keys()
                .map(String::as_str)
                .filter(|k| !k.contains(", '"))
                .collect();
            let named_args = with(&names);
            let args: Vec<&str> = named_args.iter().map(String::as_str).collect();
            let (status, lines) = pbc_in(&dir, &args);
            assert_eq!(status, 0, "{}: {request:?}", dir.display());
            let values: Vec<serde_json::Value> = lines
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON value per key"))
                .collect();
            assert_eq!(values.len(), names.len(), "{}: {request:?}", dir.display());
            for (name, value) in names.iter().zip(&values) {
                assert_eq!(&all[*name], value, "{}: {request:?}: {name}", dir.display());
                compared += 1;
            }
        }
    }
    assert!(compared >= 100, "only {compared} keys compared");
}

/// A named key is answered from the part of the index its lookup reads (and reads again from
/// a larger part, or the whole, when it reads beyond): on every corpus tree, for no facts and
/// for each factset, every key of any `--all` of the tree (but typed keys) and a name near
/// each is answered, alone, as the whole index answers it: the value (with a default and
/// without), the explanation as text and as JSON, what is said and the status.
#[test]
fn every_key_alone_answers_from_parts_of_the_index_as_from_the_whole() {
    use puppet_bindings::inject::{command::run, query::LookupOptions};
    let mut compared = 0;
    for dir in sorted_dirs("corpus/lookup/trees") {
        let mut facts: Vec<Option<std::path::PathBuf>> = vec![None];
        if let Ok(entries) = std::fs::read_dir(dir.join("facts")) {
            let mut files: Vec<std::path::PathBuf> =
                entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
            files.sort();
            facts.extend(files.into_iter().map(Some));
        }
        // The keys of every request's `--all`, each asked of every request (a key erased
        // for one node is bound for another).
        let mut names: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for facts in &facts {
            let all = run(
                &LookupOptions {
                    tree: dir.clone(),
                    facts: facts.clone(),
                    all: true,
                    json: true,
                    ..Default::default()
                },
                &Default::default(),
            );
            let Ok(all) =
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&all.stdout)
            else {
                continue;
            };
            for name in all.keys().filter(|k| !k.contains(", '")) {
                names.insert(name.clone());
                // Not bound: said with what is near it, which reads every key's name.
                names.insert(format!("{name}x"));
            }
        }
        for facts in facts {
            let request = LookupOptions {
                tree: dir.clone(),
                facts: facts.clone(),
                ..Default::default()
            };
            for name in &names {
                // With a default, a key erased or not bound is answered without reading
                // every key's name.
                for (explain, json, default) in [
                    (false, false, None),
                    (false, false, Some("'none'")),
                    (true, false, None),
                    (true, true, None),
                ] {
                    let asked = LookupOptions {
                        keys: vec![name.clone()],
                        explain,
                        json,
                        default: default.map(str::to_string),
                        ..request.clone()
                    };
                    let from_parts = run(&asked, &Default::default());
                    let from_whole = run(
                        &LookupOptions {
                            whole_index: true,
                            ..asked
                        },
                        &Default::default(),
                    );
                    let place = format!(
                        "{}, facts {facts:?}: `{name}`, explain {explain}, json {json}, default {default:?}",
                        dir.display()
                    );
                    assert_eq!(from_parts.stdout, from_whole.stdout, "{place}");
                    assert_eq!(
                        from_parts.stderr(false),
                        from_whole.stderr(false),
                        "{place}"
                    );
                    assert_eq!(from_parts.status, from_whole.status, "{place}");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 1000, "only {compared} asks compared");
}

/// Runs `pbc` in `dir`: status, stdout, stderr.
fn pbc_full(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("pbc runs");
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// The codes of the errors a run printed, in order.
fn error_codes(stderr: &str) -> Vec<&str> {
    stderr
        .match_indices("error[")
        .filter_map(|(i, _)| stderr[i + 6..].split(']').next())
        .collect()
}

/// `pbc lookup --model FILE` answers as the lookup on the tree: for every request of every
/// corpus tree, the model `pbc compile . --env E` writes for the request's environment gives the
/// same status, the same output (values, `--all`, JSON, `--explain` text and JSON, but for who
/// chose the environment) and errors with the same codes.
#[test]
fn the_model_answers_as_the_tree() {
    let scratch = std::env::temp_dir().join(format!("pbc-model-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let (mut compared, mut skipped, mut refused) = (0, 0, 0);
    for dir in sorted_dirs("corpus/lookup/trees") {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let requests = std::fs::read_to_string(dir.join("requests")).expect("requests");
        let mut models: std::collections::BTreeMap<
            String,
            Option<(std::path::PathBuf, std::path::PathBuf)>,
        > = std::collections::BTreeMap::new();
        for line in requests
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let args: Vec<&str> = line.split_whitespace().collect();
            if args.contains(&"--model") || args.contains(&"--nodes") {
                continue;
            }
            // The request's environment, from an explanation of the same request.
            let mut probe: Vec<&str> = Vec::new();
            let mut i = 0;
            while i < args.len() {
                match args[i] {
                    "--facts"
                    | "--node"
                    | "--fact"
                    | "--env"
                    | "--agent-environment"
                    | "--enc"
                    | "--hiera-config" => {
                        probe.extend(&args[i..(i + 2).min(args.len())]);
                        i += 2;
                    }
                    "--type" | "--default" | "--format" => i += 2,
                    "--strict" | "--confine" => {
                        probe.push(args[i]);
                        i += 1;
                    }
                    _ => i += 1,
                }
            }
            probe.extend(["--explain", "--format", "json", "any::key"]);
            let mut with_lookup = vec!["lookup"];
            with_lookup.extend(&probe);
            let (_, explained, _) = pbc_full(&dir, &with_lookup);
            let Ok(explained) = serde_json::from_str::<serde_json::Value>(&explained) else {
                // The request fails before any lookup (its environment, its facts).
                skipped += 1;
                continue;
            };
            let environment = explained[0]["environment"]
                .as_str()
                .expect("environment")
                .to_string();
            let chosen_by = explained[0]["environment_from"]
                .as_str()
                .expect("from")
                .to_string();
            // A global Hiera level is compiled into the model (`--hiera-config`).
            let global: Vec<&str> = args
                .iter()
                .position(|a| *a == "--hiera-config")
                .map(|i| args[i..(i + 2).min(args.len())].to_vec())
                .unwrap_or_default();
            let model_name = format!("{environment}{}", global.join("").replace(['/', '.'], "_"));
            let model_and_cache = models.entry(model_name.clone()).or_insert_with(|| {
                let compile: Vec<&str> = [
                    &["compile", "--compact", ".", "--env", &environment],
                    &global[..],
                ]
                .concat();
                let (status, json, stderr) = pbc_full(&dir, &compile);
                if status != 0 {
                    // A model is written only when the check is clean (a value that cannot
                    // be interpolated fails only its keys in a lookup, but it is an error).
                    let (check_status, _, _) = pbc_full(&dir, &["check", "."]);
                    assert_eq!(
                        (status, check_status),
                        (1, 1),
                        "{name}: compile --env {environment} fails but its check passes: {stderr}"
                    );
                    return None;
                }
                let path = scratch.join(format!("{name}-{model_name}.json"));
                std::fs::write(&path, json).expect("model written");
                let cache = scratch.join(format!("{name}-{model_name}.pbcm"));
                let cache_arg = cache.to_string_lossy().into_owned();
                let (status, _, stderr) = pbc_full(
                    &dir,
                    &[
                        &[
                            "compile",
                            "--cache",
                            "-o",
                            &cache_arg,
                            ".",
                            "--env",
                            &environment,
                        ],
                        &global[..],
                    ]
                    .concat(),
                );
                assert_eq!(status, 0, "{name}: compile --cache: {stderr}");
                Some((path, cache))
            });
            let Some((model, cache)) = model_and_cache else {
                refused += 1;
                continue;
            };
            let (tree_status, tree_out, tree_err) =
                pbc_full(&dir, &[&["lookup"], &args[..]].concat());
            // The JSON model, and the cache (which reads only what the keys need).
            for file in [&*model, &*cache] {
                let mut on_model: Vec<&str> = vec!["lookup", "--model"];
                let model_path = file.to_string_lossy().into_owned();
                on_model.push(&model_path);
                let mut i = 0;
                while i < args.len() {
                    // The model answers alone: no tree (`-C`), no global level to read.
                    if args[i] == "--agent-environment"
                        || args[i] == "--hiera-config"
                        || args[i] == "-C"
                    {
                        i += 2;
                    } else {
                        on_model.push(args[i]);
                        i += 1;
                    }
                }
                let (model_status, model_out, model_err) = pbc_full(&dir, &on_model);
                let context = format!(
                    "{name}: {line} ({model_path})\n--- tree\n{tree_out}{tree_err}--- model\n{model_out}{model_err}"
                );
                assert_eq!(tree_status, model_status, "{context}");
                assert_eq!(
                    tree_out,
                    model_out.replace("the model", &chosen_by),
                    "{context}"
                );
                assert_eq!(error_codes(&tree_err), error_codes(&model_err), "{context}");
            }
            compared += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "{compared} requests compared, {skipped} failed before any lookup, {refused} of trees whose check fails (no model is written)"
    );
    assert!(
        compared >= 60 && skipped <= 10,
        "{compared} compared, {skipped} skipped"
    );
}

/// The model the `model` corpus tree's requests read is the one pbc compiles from that tree now.
#[test]
fn the_committed_model_is_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees/model");
    let (status, compiled, stderr) = pbc_full(&dir, &["compile", "--compact", "."]);
    assert_eq!(status, 0, "{stderr}");
    let committed = std::fs::read_to_string(dir.join("models/site.json")).expect("model");
    assert!(
        compiled == committed,
        "corpus/lookup/trees/model/models/site.json is stale: run `pbc compile --compact . > models/site.json` there"
    );
}

/// `--nodes` with `--model`: every node answered from the model of its environment, JSON or
/// cache, gets the line it gets on the tree (values, errors), for `--all` and for a list of keys
/// (with one nobody binds), on every corpus tree with a factsets directory.
#[test]
fn every_node_answers_from_the_model_as_from_the_tree() {
    let scratch = std::env::temp_dir().join(format!("pbc-model-nodes-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let mut compared = 0;
    for dir in sorted_dirs("corpus/lookup/trees") {
        if !dir.join("facts").is_dir() {
            continue;
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (_, on_tree) = pbc_in(&dir, &["lookup", "--nodes", "facts", "--all"]);
        let on_tree: Vec<serde_json::Value> = on_tree
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line per node"))
            .collect();
        let environments: std::collections::BTreeSet<&str> = on_tree
            .iter()
            .filter_map(|l| l["environment"].as_str())
            .collect();
        // Some keys: every key some node has, and one nobody binds.
        let mut keys: std::collections::BTreeSet<String> = on_tree
            .iter()
            .flat_map(|l| {
                let names = |m: &serde_json::Value| {
                    m.as_object()
                        .map(|o| o.keys().cloned().collect::<Vec<_>>())
                        .unwrap_or_default()
                };
                names(&l["values"]).into_iter().chain(names(&l["errors"]))
            })
            .filter(|k| k != "*")
            .collect();
        keys.insert("no::such::key".into());
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let with_keys = |prefix: &[&str]| -> Vec<serde_json::Value> {
            let (_, out) = pbc_in(&dir, &[prefix, &["--nodes", "facts"], &keys[..]].concat());
            out.lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line per node"))
                .collect()
        };
        let tree_keys = with_keys(&["lookup"]);
        for environment in environments {
            let (status, json, stderr) =
                pbc_full(&dir, &["compile", "--compact", ".", "--env", environment]);
            if status != 0 {
                // Written only when the check is clean: the check must refuse it too.
                let (check_status, _, _) = pbc_full(&dir, &["check", "."]);
                assert_eq!((status, check_status), (1, 1), "{name}: {stderr}");
                continue;
            }
            let model = scratch.join(format!("{name}-{environment}.json"));
            std::fs::write(&model, json).expect("model written");
            let model = model.to_string_lossy().into_owned();
            let cache = scratch.join(format!("{name}-{environment}.pbcm"));
            let cache = cache.to_string_lossy().into_owned();
            let (status, _, stderr) = pbc_full(
                &dir,
                &[
                    "compile",
                    "--cache",
                    "-o",
                    &cache,
                    ".",
                    "--env",
                    environment,
                ],
            );
            assert_eq!(status, 0, "{name}: {stderr}");
            for file in [&model, &cache] {
                let (_, on_model) = pbc_in(
                    &dir,
                    &["lookup", "--model", file, "--nodes", "facts", "--all"],
                );
                let on_model: Vec<serde_json::Value> = on_model
                    .lines()
                    .map(|l| serde_json::from_str(l).expect("a JSON line per node"))
                    .collect();
                let model_keys = with_keys(&["lookup", "--model", file]);
                assert_eq!(on_model.len(), on_tree.len(), "{name}");
                for (i, t) in on_tree.iter().enumerate() {
                    if t["environment"] == environment {
                        assert_eq!(t, &on_model[i], "{name}: {file}");
                        assert_eq!(tree_keys[i], model_keys[i], "{name}: {file}");
                        compared += 1;
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(compared >= 20, "only {compared} nodes compared");
}

/// The value of `key` as written in a data file (its first line).
fn written_value(file: &std::path::Path, key: &str) -> String {
    let text = std::fs::read_to_string(file).expect("data file");
    let prefix = format!("{key}: ");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .expect("the key")
        .to_string()
}

/// hiera-eyaml through the binary: a key in `pkcs7_private_key_env_var`'s variable opens the
/// level's values; `pbc diff` compares decrypted values without printing them (a value
/// encrypted again is no change), and without the key compares ciphertexts.
#[test]
fn eyaml_keys_from_the_environment_and_diffs_of_secrets() {
    let tree =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees/eyaml-levels");
    let key_file = tree.join("keys/private_key.pkcs7.pem");
    let pem = std::fs::read_to_string(&key_file).expect("the test key");
    let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args([
            "lookup",
            "--empty-level",
            "Vault",
            "--facts",
            "facts/debian.json",
        ])
        .args(["profile::env_token", "profile::token"])
        .env("PBC_TEST_EYAML_PRIVATE_KEY", &pem)
        .current_dir(&tree)
        .output()
        .expect("pbc runs");
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "\"env-tok\"\n\"tok-123\"\n",
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.status.code(), Some(0));

    let scratch = std::env::temp_dir().join(format!("pbc-eyaml-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let (old, new, facts) = (
        scratch.join("old"),
        scratch.join("new"),
        scratch.join("facts"),
    );
    copy_tree(&tree, &old);
    copy_tree(&tree, &new);
    std::fs::create_dir_all(&facts).expect("facts dir");
    std::fs::copy(
        tree.join("facts/debian.json"),
        facts.join("n1.example.com.json"),
    )
    .expect("facts");
    let secrets = new.join("data/secrets.eyaml");
    let set_token = |value: String| {
        let text = std::fs::read_to_string(&secrets).expect("secrets");
        let line = format!(
            "profile::token: {}",
            written_value(&secrets, "profile::token")
        );
        std::fs::write(
            &secrets,
            text.replace(&line, &format!("profile::token: {value}")),
        )
        .expect("write");
    };
    let key = key_file.to_string_lossy().into_owned();
    let diff = |with_key: bool| {
        let mut args = vec![
            "diff",
            "old",
            "new",
            "--nodes",
            "facts",
            "--empty-level",
            "Vault",
        ];
        if with_key {
            args.extend(["--eyaml-private-key", key.as_str()]);
        }
        args.push("profile::token");
        pbc_full(&scratch, &args)
    };
    // The same plaintext encrypted again: no change with the key; without it, the
    // ciphertexts differ (the level's relative key path is not found from `scratch`).
    set_token(written_value(&secrets, "profile::token_again"));
    let (status, stdout, stderr) = diff(true);
    assert_eq!((status, stdout.as_str()), (0, ""), "{stderr}");
    let (status, stdout, _) = diff(false);
    assert_eq!(status, 1);
    assert!(
        stdout.contains("profile::token: encrypted value changed"),
        "{stdout}"
    );
    // Another plaintext: a change, and neither secret printed.
    set_token(written_value(&secrets, "profile::secret_token"));
    let (status, stdout, stderr) = diff(true);
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stdout.contains("profile::token: decrypted value changed"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("tok-") && !stderr.contains("tok-"),
        "{stdout}{stderr}"
    );
    // The same in JSON: each side says it holds a decrypted value, not what it is.
    let (status, stdout, stderr) = pbc_full(
        &scratch,
        &[
            "diff",
            "old",
            "new",
            "--nodes",
            "facts",
            "--empty-level",
            "Vault",
            "--eyaml-private-key",
            key.as_str(),
            "--format",
            "json",
            "profile::token",
        ],
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stdout.contains(r#""profile::token":{"old":{"decrypted":true},"new":{"decrypted":true}}"#),
        "{stdout}"
    );
    assert!(!stdout.contains("tok-"), "{stdout}");
    let _ = std::fs::remove_dir_all(&scratch);
}
