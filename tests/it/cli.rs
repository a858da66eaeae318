//! The `pbc` binary's flags, end to end: `--format pn` prints what the library writes, and
//! `--validate` turns Puppet's validation errors into a failing exit status; `pbc check`'s output
//! formats, `--strict` and exit statuses; hidden directories are skipped; `pbc compile` writes a model
//! only when the check is clean, atomically with `-o`; `pbc schema` prints the model's schema;
//! `pbc lookup` exits 0 found, 1 not found, 2 usage.

use crate::common;

use common::pbc;

use std::process::Command;

/// `pbc lookup` for the example tree's node `web01.ams.example.com`, with `more` after.
fn lookup_example(more: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "lookup",
        "--facts",
        "corpus/lookup/trees/example/facts",
        "--node",
        "web01.ams.example.com",
    ];
    args.extend_from_slice(more);
    pbc(&args)
}

/// `pbc parse DIR` parses its files on every core as the walk finds them, and says and writes
/// everything as a parse of each file in turn would, in the sorted order of the files: the PN
/// of a clean directory, and the diagnostics (with their files' excerpts) of one with errors.
/// A file named again beside its directory is parsed once.
#[test]
fn a_directory_parses_as_its_files_in_order() {
    let sorted = |dir: &str| {
        let mut files: Vec<String> = walk_pp(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(dir)
                .as_path(),
        )
        .into_iter()
        .map(|f| {
            f.strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .map(|p| p.to_string_lossy().trim_start_matches('/').to_string())
                .unwrap_or_default()
        })
        .collect();
        files.sort_by(|a, b| std::path::Path::new(a).cmp(std::path::Path::new(b)));
        files
    };
    let clean = sorted("corpus/parse/valid");
    assert!(clean.len() > 20, "{clean:?}");
    let mut expected = String::new();
    for f in &clean {
        let (status, out, err) = pbc(&["parse", "--format", "pn", f]);
        assert_eq!(status, 0, "{f}: {err}");
        expected.push_str(&out);
    }
    let (status, out, err) = pbc(&["parse", "--format", "pn", "corpus/parse/valid"]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert!(
        out == expected,
        "the directory's PN is not its files' in order"
    );
    let one = clean[clean.len() / 2].clone();
    let again = pbc(&["parse", "--format", "pn", "corpus/parse/valid", &one]);
    assert!(again.1 == expected, "a file named twice is written once");

    let invalid = sorted("corpus/parse/invalid");
    assert!(invalid.len() > 20, "{invalid:?}");
    let mut rendered = Vec::new();
    for f in &invalid {
        let (_, out, err) = pbc(&["parse", "--error-format", "json", f]);
        let doc: serde_json::Value = serde_json::from_str(if out.is_empty() { &err } else { &out })
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        rendered.extend(doc["diagnostics"].as_array().cloned().unwrap_or_default());
    }
    let (status, out, _) = pbc(&["parse", "--error-format", "json", "corpus/parse/invalid"]);
    assert_eq!(status, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON diagnostics");
    let whole = doc["diagnostics"].as_array().cloned().unwrap_or_default();
    assert!(whole.len() >= invalid.len(), "{}", whole.len());
    assert!(
        whole == rendered,
        "the directory's diagnostics are not its files' in order"
    );
}

fn walk_pp(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("a corpus directory")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk_pp(&path));
        } else if path.extension().is_some_and(|e| e == "pp") {
            found.push(path);
        }
    }
    found
}

#[test]
fn format_pn_prints_one_line_per_file() {
    let files = ["corpus/pn/numbers.pp", "corpus/pn/selectors.pp"];
    let mut expected = String::new();
    for f in files {
        let src = std::fs::read_to_string(f).expect("corpus file");
        let program = puppet_bindings::parse_file(puppet_bindings::span::FileId(0), &src)
            .program
            .expect("parses");
        expected.push_str(&puppet_bindings::pn::program_to_json(&program));
    }
    let (code, stdout, _) = pbc(&["parse", "--format", "pn", files[0], files[1]]);
    assert_eq!(code, 0);
    assert_eq!(stdout, expected);
    assert_eq!(stdout.lines().count(), 2);
}

/// `pbc parse` makes each file's PN statement by statement: a file whose error comes after
/// statements already made into PN, or an earlier clean file, prints nothing (no partial
/// output); without a format the same file exits 1 with the error.
#[test]
fn format_pn_prints_nothing_when_a_file_has_an_error() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pn-late-error");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let late = dir.join("late.pp");
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("$x{i} = [{i}, 'text']\nnotice \"${{x{i}}}\"\n"));
    }
    text.push_str("$broken = [1, 2\n");
    std::fs::write(&late, text).expect("written");
    let late = late.to_string_lossy().into_owned();
    for args in [
        vec!["parse", "--format", "pn", late.as_str()],
        vec![
            "parse",
            "--format",
            "pn",
            "corpus/pn/numbers.pp",
            late.as_str(),
        ],
        vec!["parse", late.as_str()],
    ] {
        let (code, stdout, stderr) = pbc(&args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: partial output {stdout}");
        assert!(stderr.contains("late.pp:401:"), "{args:?}: {stderr}");
    }
}

#[test]
fn validate_reports_puppet_issue_codes() {
    let file = "corpus/validate/illegal_assignment.pp";
    let (code, _, stderr) = pbc(&["parse", file]);
    assert_eq!(
        code, 0,
        "without --validate the file only has to parse: {stderr}"
    );
    let (code, stdout, stderr) = pbc(&["parse", "--validate", "--format", "pn", file]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error[ILLEGAL_ASSIGNMENT]"), "{stderr}");
    assert!(
        stdout.is_empty(),
        "no output for a file with errors: {stdout}"
    );
}

#[test]
fn validation_warnings_do_not_fail() {
    let (code, _, stderr) = pbc(&["parse", "--validate", "corpus/validate/dup_key.pp"]);
    assert_eq!(code, 0);
    assert!(stderr.contains("warning[DUPLICATE_KEY]"), "{stderr}");
}

// ---- pbc check ----------------------------------------------------------------------------

#[test]
fn check_clean_tree_exits_zero_with_summary() {
    let (code, stdout, stderr) = pbc(&["check", "examples/site"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    assert_eq!(stderr, "3 files checked: 0 errors, 0 warnings\n");
}

#[test]
fn check_errors_exit_one() {
    let (code, _, stderr) = pbc(&["check", "corpus/check/invalid/categories_common.pp"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error[CATEGORY_COMMON_LISTED]"), "{stderr}");
    assert!(
        stderr.ends_with("1 file checked: 1 error, 0 warnings\n"),
        "{stderr}"
    );
}

#[test]
fn check_warnings_pass_unless_strict() {
    let file = "corpus/check/invalid/override_no_effect.pp";
    let (code, _, stderr) = pbc(&["check", file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("warning[OVERRIDE_HAS_NO_EFFECT]"),
        "{stderr}"
    );
    let (code, _, stderr) = pbc(&["check", "--strict", file]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error[OVERRIDE_HAS_NO_EFFECT]"), "{stderr}");
    assert!(
        stderr.ends_with("1 file checked: 2 errors, 0 warnings\n"),
        "{stderr}"
    );
}

#[test]
fn check_missing_path_exits_two() {
    let (code, stdout, stderr) = pbc(&["check", "corpus/check/no-such-dir"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert_eq!(stderr, "pbc: `corpus/check/no-such-dir` does not exist\n");
}

#[test]
fn check_json_document() {
    let (code, stdout, _) = pbc(&[
        "check",
        "--error-format",
        "json",
        "corpus/check/invalid/layers_uris.pp",
    ]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(doc["summary"]["files"], 1);
    assert_eq!(doc["summary"]["warnings"], 2);
    let first = &doc["diagnostics"][0];
    assert_eq!(first["code"], "MISSING_SCHEME");
    assert_eq!(first["file"], "corpus/check/invalid/layers_uris.pp");
    assert_eq!(first["line"], 3);
}

#[test]
fn check_sarif_document() {
    // A tree with a file that does not parse still gives a valid SARIF log.
    let (code, stdout, _) = pbc(&[
        "check",
        "--error-format",
        "sarif",
        "corpus/check/trees/name_mismatch",
        "corpus/parse/invalid/puppet/eof.pp",
    ]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("SARIF on stdout");
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "pbc");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let results = run["results"].as_array().expect("results");
    assert!(results.len() >= 3);
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], id, "ruleIndex points at the rule");
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(
            !uri.starts_with('/'),
            "paths relative to the current directory: {uri}"
        );
        assert!(loc["region"]["startLine"].as_u64().expect("line") >= 1);
    }
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "BINDINGS_NAME_MISMATCH"));
    assert!(results.iter().any(|r| r["level"] == "error"
        && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "corpus/parse/invalid/puppet/eof.pp"));
}

#[test]
fn directories_skip_hidden_ones() {
    let dir = std::env::temp_dir().join(format!("pbc-hidden-{}", std::process::id()));
    let hidden = dir.join(".git");
    std::fs::create_dir_all(&hidden).expect("temp dir");
    std::fs::write(dir.join("ok.pp"), "$a = 1\n").expect("write");
    std::fs::write(hidden.join("broken.pp"), "$a = \n").expect("write");
    let path = dir.to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["check", &path]);
    let (parse_code, _, _) = pbc(&["parse", &path]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("1 file checked"), "{stderr}");
    assert_eq!(parse_code, 0);
}

#[test]
fn compile_writes_the_model_atomically_and_only_when_clean() {
    let dir = std::env::temp_dir().join(format!("pbc-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("model.json");
    let out_arg = out.to_string_lossy().into_owned();

    let (code, stdout, _) = pbc(&["compile", "corpus/compile/trees/sample"]);
    assert_eq!(code, 0);
    let (code, _, _) = pbc(&["compile", "-o", &out_arg, "corpus/compile/trees/sample"]);
    assert_eq!(code, 0);
    let written = std::fs::read_to_string(&out).expect("model written");
    assert_eq!(written, stdout);
    assert!(written.starts_with("{\n  \"format\": \"puppet-bindings-model\",\n  \"version\": 1,"));

    // A tree with errors: exit 1, diagnostics on stderr, the old model untouched.
    let (code, stdout, stderr) =
        pbc(&["compile", "-o", &out_arg, "corpus/check/trees/composition"]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("error[CONFLICTING_BINDINGS]"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).expect("still there"), written);

    // A tree whose files are clean and whose layers conflict: its model is written to a
    // temporary file while the layers are judged, and that file is thrown away.
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("manifests")).expect("tree");
    std::fs::create_dir_all(tree.join("bindings")).expect("tree");
    std::fs::write(
        tree.join("manifests/site.pp"),
        "site {\n  bindings => [layer { 'site': include => ['confdir:/a', 'confdir:/b'] }]\n}\n",
    )
    .expect("write");
    std::fs::write(
        tree.join("bindings/a.pp"),
        "bindings a { bind 'port' to 1 }\n",
    )
    .expect("write");
    std::fs::write(
        tree.join("bindings/b.pp"),
        "bindings b { bind 'port' to 2 }\n",
    )
    .expect("write");
    let tree_arg = tree.to_string_lossy().into_owned();
    let (code, stdout, stderr) = pbc(&["compile", "-o", &out_arg, &tree_arg]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert_eq!(
        stderr.matches("error[").count(),
        stderr.matches("error[CONFLICTING_BINDINGS]").count(),
        "only the layers' judgement finds errors: {stderr}"
    );
    assert!(stderr.contains("error[CONFLICTING_BINDINGS]"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).expect("still there"), written);

    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("temp dir")
        .map(|e| e.expect("entry").file_name())
        .filter(|name| name != "tree")
        .collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A model larger than the parts `pbc compile -o` flushes to disk while it writes (8 MB) is
/// written whole: the file is what standard output gets, and no temporary file stays. The
/// same holds for the compact model, which standard output takes in chunks of its own
/// (written past `Stdout`'s line buffer).
#[test]
fn compile_writes_a_large_model_whole() {
    let dir = std::env::temp_dir().join(format!("pbc-large-model-{}", std::process::id()));
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("bindings")).expect("temp dir");
    let mut source = String::from("bindings default {\n");
    for i in 0..20_000 {
        source.push_str(&format!("  bind 'key{i}' to 'value {i}'\n"));
    }
    source.push_str("}\n");
    std::fs::write(tree.join("bindings/default.pp"), source).expect("write");
    let tree_arg = tree.to_string_lossy().into_owned();
    let out = dir.join("model.json");
    let out_arg = out.to_string_lossy().into_owned();
    let (code, stdout, stderr) = pbc(&["compile", &tree_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.len() > 8 << 20, "{} bytes", stdout.len());
    let (code, _, stderr) = pbc(&["compile", "-o", &out_arg, &tree_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read_to_string(&out).expect("written") == stdout);
    let (code, compact, stderr) = pbc(&["compile", "--compact", &tree_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert!(compact.len() > 1 << 20, "{} bytes", compact.len());
    assert_eq!(compact.lines().count(), 1);
    let (code, _, stderr) = pbc(&["compile", "--compact", "-o", &out_arg, &tree_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read_to_string(&out).expect("written") == compact);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("temp dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_files_mode_and_usage_errors() {
    let (code, stdout, _) = pbc(&[
        "compile",
        "corpus/compile/files/multibinds.pp",
        "corpus/compile/files/categories.pp",
    ]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let names: Vec<&str> = doc["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| b["name"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(names, ["categories", "multibinds"]);
    // A tree and a file together, or two trees, are not one thing to compile.
    let (code, _, stderr) = pbc(&[
        "compile",
        "corpus/compile/trees/sample",
        "corpus/compile/files/multibinds.pp",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("one tree directory"), "{stderr}");
    // `--env` names an environment of a site; bindings files have none.
    let (code, _, stderr) = pbc(&[
        "compile",
        "--env",
        "staging",
        "corpus/compile/files/multibinds.pp",
    ]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn compile_env_picks_the_environment_of_a_site() {
    let site = "corpus/lookup/trees/environments";
    let (code, stdout, stderr) = pbc(&["compile", "--env", "staging", site]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("master/staging-bindings/default.pp"),
        "{stdout}"
    );
    assert!(!stdout.contains("master/bindings/default.pp"), "{stdout}");
    let (code, stdout, stderr) = pbc(&["compile", "--env", "nosuch", site]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("error[UNKNOWN_ENVIRONMENT]"), "{stderr}");
    // Without environments.pp only `production` exists.
    let (code, _, stderr) = pbc(&[
        "compile",
        "--env",
        "staging",
        "corpus/compile/trees/sample/modules",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unknown environment `staging`"), "{stderr}");
}

#[test]
fn schema_prints_the_model_schema() {
    let (code, stdout, stderr) = pbc(&["schema"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, puppet_bindings::lower::model::SCHEMA);
    let schema: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(schema["$id"], "urn:puppet-bindings:model:1");
}

/// `pbc schema --answers`: the schema of `pbc lookup --format answers` (tests/it/schema.rs checks
/// what lookup writes against it); that format answers one node and explains nothing.
#[test]
fn schema_prints_the_answers_schema_and_answers_refuse_other_modes() {
    let (code, stdout, stderr) = pbc(&["schema", "--answers"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, puppet_bindings::inject::command::ANSWERS_SCHEMA);
    let schema: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(schema["$id"], "urn:puppet-bindings:answers:1");
    let tree = "corpus/lookup/trees/example";
    let facts = "corpus/lookup/trees/example/facts";
    for mode in [
        &["--explain", "ntp::servers"][..],
        &["--nodes", facts, "ntp::servers"][..],
    ] {
        let mut args = vec!["lookup", "--format", "answers", "--facts", facts];
        args.extend(mode);
        args.push(tree);
        let (code, stdout, stderr) = pbc(&args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{mode:?}");
        assert!(
            stderr.contains("--format answers answers one node's keys"),
            "{stderr}"
        );
    }
}

#[test]
fn lookup_exit_statuses() {
    let tree = "corpus/lookup/trees/example";
    let facts = "corpus/lookup/trees/example/facts";
    let node = "web01.ams.example.com";
    let (code, stdout, stderr) = pbc(&[
        "lookup",
        "--facts",
        facts,
        "--node",
        node,
        "ntp::iburst",
        "motd",
        tree,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "true\n\"Welcome to web01.ams.example.com (production)\"\n"
    );
    let (code, _, stderr) = pbc(&["lookup", "--facts", facts, "--node", node, "nosuch", tree]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error[KEY_NOT_FOUND]"), "{stderr}");
    let (code, _, _) = pbc(&["lookup", "--facts", facts]);
    assert_eq!(code, 2, "no keys and no --all is a usage error");
    let (code, _, stderr) = pbc(&[
        "lookup", "--facts", facts, "--node", node, "--type", "Array[", "motd", tree,
    ]);
    assert_eq!(code, 2, "{stderr}");
}

/// The user's path: one line per key (`null` for a key that fails), "did you mean" for a key
/// one edit away, no `--explain` hint under `--explain`, a note when no facts were given, and
/// plain words for compiling a file with no bindings or a path that does not exist.
#[test]
fn lookup_and_compile_say_what_went_wrong() {
    let tree = "corpus/lookup/trees/example";
    let (code, stdout, stderr) = lookup_example(&["ntp::server", "ntp::servers", tree]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.starts_with("null\n["), "{stdout}");
    assert_eq!(stdout.lines().count(), 2);
    assert!(stderr.contains("did you mean `ntp::servers`?"), "{stderr}");
    assert!(stderr.contains("`--explain` shows"), "{stderr}");
    let (_, _, stderr) = lookup_example(&["--explain", "ntp::server", tree]);
    assert!(!stderr.contains("`--explain` shows"), "{stderr}");

    let (code, _, stderr) = pbc(&["compile", "examples/site/manifests/site.pp"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no `bindings` blocks"), "{stderr}");
    assert!(stderr.contains("pbc compile DIR"), "{stderr}");
    let (code, _, stderr) = pbc(&["compile", "/nonexistent/tree"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("`/nonexistent/tree` does not exist"),
        "{stderr}"
    );
}

/// The tree is `-C DIR` (or a last argument naming a directory); a path where a key belongs,
/// no key at all, or keys with `--all` are usage errors that say so, not lookups in vain.
#[test]
fn lookup_takes_its_tree_plainly() {
    let run = lookup_example;
    let (code, stdout, _) = run(&["-C", "corpus/lookup/trees/example", "ntp::servers"]);
    assert_eq!((code, stdout.as_str()), (0, "[\"ntp.ams.example.com\"]\n"));
    let (code, stdout, _) = run(&["ntp::servers", "corpus/lookup/trees/example"]);
    assert_eq!((code, stdout.as_str()), (0, "[\"ntp.ams.example.com\"]\n"));
    for (more, says) in [
        (
            &["ntp::servers", "/etc/puppetx"][..],
            "is neither a key nor a directory",
        ),
        (&["corpus/lookup/trees/example"][..], "lookup needs keys"),
        (
            &["--all", "x", "corpus/lookup/trees/example"][..],
            "not both",
        ),
        (&["-C", "/nonexistent", "x"][..], "is not a directory"),
        (
            &["--pretty", "x", "corpus/lookup/trees/example"][..],
            "--pretty indents JSON",
        ),
    ] {
        let (code, stdout, stderr) = run(more);
        assert_eq!((code, stdout.as_str()), (2, ""), "{more:?}");
        assert!(stderr.contains(says), "{more:?}: {stderr}");
    }
}

/// `--error-format json` carries every secondary location, as SARIF's `relatedLocations` do
/// (the other binding of a conflict).
#[test]
fn json_diagnostics_carry_related_locations() {
    let (code, stdout, _) = pbc(&[
        "check",
        "--error-format",
        "json",
        "corpus/check/trees/composition",
    ]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let conflict = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == "CONFLICTING_BINDINGS")
        .expect("a conflict");
    let related = &conflict["related"][0];
    assert_eq!(related["message"], "the other binding of `port`");
    assert_eq!(related["line"], 3);
    assert!(related["file"]
        .as_str()
        .is_some_and(|f| f.ends_with("bindings/default.pp")));
}

/// `pbc` with `stdin` as its standard input.
fn pbc_with_input(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("pbc runs");
    if let Some(mut input) = child.stdin.take() {
        // pbc may end without reading its input (a usage error): the pipe is then closed.
        if let Err(e) = input.write_all(stdin) {
            assert_eq!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe,
                "stdin written: {e}"
            );
        }
    }
    let out = child.wait_with_output().expect("pbc ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--facts -` and `--enc -` read standard input (JSON or YAML); a facts file that cannot be
/// read is an I/O problem (exit 2) named in plain words, and what it holds, when wrong, is an
/// error found (exit 1).
#[test]
fn facts_from_standard_input_and_unreadable_files() {
    let tree = "corpus/lookup/trees/example";
    let json = std::fs::read(format!("{tree}/facts/web01.ams.example.com.json")).expect("facts");
    let yaml = b"fqdn: web01.ams.example.com\ndata_center: ams\nis_virtual: true\n";
    for input in [&json[..], &yaml[..]] {
        let (code, stdout, stderr) = pbc_with_input(
            &["lookup", "--facts", "-", "-C", tree, "ntp::servers"],
            input,
        );
        assert_eq!(
            (code, stdout.as_str()),
            (0, "[\"ntp.ams.example.com\"]\n"),
            "{stderr}"
        );
    }
    let (code, _, stderr) = pbc_with_input(
        &["lookup", "--facts", "-", "-C", tree, "ntp::servers"],
        b"fqdn: [",
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("error[INVALID_FACTS]: standard input:")
            && stderr.contains("the facts file is not YAML data"),
        "{stderr}"
    );
    let (code, _, stderr) = pbc_with_input(
        &["lookup", "--facts", "-", "--enc", "-", "-C", tree, "x"],
        b"{}",
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("not both"), "{stderr}");
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", "nosuch.json", "-C", tree, "x"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "pbc: cannot read the facts file `nosuch.json`: No such file or directory\n"
    );
}

/// `--color always` colours diagnostics, `never` and NO_COLOR do not (nor does output that is
/// not a terminal, as here); `-q` leaves only the summary line, and nothing when clean.
#[test]
fn colour_and_quiet() {
    let warned = "corpus/check/trees/include_typo";
    let (_, _, coloured) = pbc(&["check", warned, "--color", "always"]);
    assert!(coloured.contains("\u{1b}["), "{coloured}");
    for args in [
        &["check", warned][..],
        &["check", warned, "--color", "never"][..],
    ] {
        let (_, _, plain) = pbc(args);
        assert!(!plain.contains('\u{1b}'), "{plain}");
        assert!(
            plain.contains("warning[INCLUDE_MATCHES_NOTHING]"),
            "{plain}"
        );
    }
    let (code, stdout, quiet) = pbc(&["check", "-q", warned]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert_eq!(quiet, "3 files checked: 0 errors, 2 warnings\n");
    let (code, _, quiet) = pbc(&["check", "-q", "corpus/check/valid/site.pp"]);
    assert_eq!((code, quiet.as_str()), (0, ""));
    let (code, _, quiet) = pbc(&[
        "check",
        "--quiet",
        "corpus/check/invalid/categories_common.pp",
    ]);
    assert_eq!(code, 1);
    assert!(
        quiet.ends_with("1 file checked: 1 error, 0 warnings\n") && quiet.lines().count() == 1,
        "{quiet}"
    );
}

/// `check` and `compile` take the tree with `-C DIR` like `lookup` (paths after it are
/// relative to it); the shell completions and the manual page come from the same definitions.
#[test]
fn tree_option_completions_and_manual() {
    let (code, _, stderr) = pbc(&["check", "-C", "corpus/check/trees/include_typo"]);
    assert_eq!(code, 0);
    assert!(
        stderr.contains("corpus/check/trees/include_typo/manifests/site.pp:6:35"),
        "{stderr}"
    );
    let (code, _, stderr) = pbc(&["check", "-C", "corpus/check", "trees/include_typo"]);
    assert_eq!(code, 0);
    assert!(
        stderr.ends_with("3 files checked: 0 errors, 2 warnings\n"),
        "{stderr}"
    );
    let (code, by_option, _) = pbc(&["compile", "-C", "corpus/lookup/trees/example"]);
    let (_, by_path, _) = pbc(&["compile", "corpus/lookup/trees/example"]);
    assert_eq!(code, 0);
    assert_eq!(by_option, by_path);

    for (shell, says) in [
        ("bash", "complete -F _pbc"),
        ("zsh", "#compdef pbc"),
        ("fish", "complete -c pbc"),
    ] {
        let (code, script, _) = pbc(&["completions", shell]);
        assert_eq!(code, 0);
        assert!(script.contains(says), "{shell}");
        for word in ["lookup", "facts", "confine"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let (code, page, _) = pbc(&["man"]);
    assert_eq!(code, 0);
    assert!(page.contains(".TH pbc 1"), "{page}");
    assert!(page.contains("lookup"), "{page}");
}

/// Each file's own findings come before the findings across files, which are often their
/// consequence: here `b.pp`'s own error is printed before the unknown category in `a.pp`.
#[test]
fn each_files_own_findings_come_first() {
    let dir = common::write_tree(
        "cli",
        "finding_order",
        &[],
        &[
            (
                "manifests/site.pp",
                "site {\n  categories { dc => $::dc }\n  bindings => [ layer { 'site': include => ['confdir:/a', 'confdir:/b'] } ]\n}\n",
            ),
            ("bindings/a.pp", "bindings a {\n  when rack 'r1' { bind 'k' to 1 }\n}\n"),
            ("bindings/b.pp", "bindings b {\n  multibind 'm' to 1\n}\n"),
        ],
    );
    let (code, _, stderr) = pbc(&["check", "-C", &dir.display().to_string()]);
    assert_eq!(code, 1, "{stderr}");
    let own = stderr
        .find("error[MULTIBIND_VALUE]")
        .expect("b.pp's own error");
    let across = stderr
        .find("error[UNKNOWN_CATEGORY]")
        .expect("a.pp's finding");
    assert!(own < across, "{stderr}");
}

/// `--binder-config FILE` replaces each environment's own binder_config.yaml (here: layers
/// that leave the module's data out); a file that does not exist is a usage error.
#[test]
fn binder_config_option() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("binder-config-option");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("binder_config.yaml");
    std::fs::write(
        &file,
        "version: 2\nlayers:\n  - {name: modules, include: 'module:/*::default'}\n",
    )
    .expect("written");
    let tree = "corpus/lookup/trees/arm9-funny-hat";
    let facts = format!("{tree}/facts/linux.json");
    let (code, stdout, _) = pbc(&["lookup", "-C", tree, "--facts", &facts, "has_funny_hat"]);
    assert_eq!((code, stdout.as_str()), (0, "\"comedians\"\n"));
    let config = file.display().to_string();
    let (code, stdout, stderr) = pbc(&[
        "lookup",
        "--binder-config",
        &config,
        "-C",
        tree,
        "--facts",
        &facts,
        "has_funny_hat",
    ]);
    assert_eq!((code, stdout.as_str()), (1, "null\n"), "{stderr}");
    assert!(stderr.contains("error[KEY_NOT_FOUND]"), "{stderr}");
    let (code, _, stderr) = pbc(&["check", "--binder-config", "nosuch.yaml", tree]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot find the binder configuration file `nosuch.yaml`"),
        "{stderr}"
    );
}

/// The files global options name must exist: a usage error (2) names the option's file, before
/// anything is read.
#[test]
fn global_option_files_that_do_not_exist_are_usage_errors() {
    for (option, what) in [
        ("--hiera-config", "Hiera configuration file"),
        ("--eyaml-private-key", "hiera-eyaml private key"),
    ] {
        let (code, stdout, stderr) = pbc(&[
            "lookup",
            option,
            "nosuch.pem",
            "-C",
            "examples/control-repo",
            "motd",
        ]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{option}: {stderr}");
        assert!(
            stderr.contains(&format!("cannot find the {what} `nosuch.pem`")),
            "{option}: {stderr}"
        );
    }
}

/// A module's hiera.yaml is the module's wherever the tree given starts: compiling the module's
/// own directory puts its data in the `modules` layer, under `module-hiera:`.
#[test]
fn a_module_checked_alone_keeps_its_data_in_the_modules_layer() {
    let (code, model, stderr) = pbc(&[
        "compile",
        "corpus/lookup/trees/arm9-funny-hat/modules/funny",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&model).expect("a model");
    let layer = doc["layers"]["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .find(|l| l["name"] == "modules")
        .expect("the modules layer");
    let names: Vec<&str> = layer["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert!(
        names.contains(&"module-hiera:/funny/data/common.yaml"),
        "{names:?}"
    );
}

/// `pbc compile --compact` writes the same model on one line.
#[test]
fn compile_compact_is_the_same_model_on_one_line() {
    let (code, indented, stderr) = pbc(&["compile", "corpus/compile/trees/data_in_modules"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, compact, stderr) = pbc(&[
        "compile",
        "--compact",
        "corpus/compile/trees/data_in_modules",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(compact.lines().count(), 1);
    assert!(
        compact.len() < indented.len() / 2,
        "{} {}",
        compact.len(),
        indented.len()
    );
    let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s).expect("JSON");
    assert_eq!(parse(&compact), parse(&indented));
}

/// `pbc diff OLD NEW --nodes DIR` prints only the nodes and keys whose answers differ, and
/// exits 1 when something does, 0 when nothing does; `lookup --nodes` refuses one-node flags.
#[test]
fn diff_shows_what_changes_for_which_node() {
    let site = "site {\n  categories { dc => $::dc }\n}\n";
    let facts = [
        ("facts/n1.json", "{\"dc\": \"ams\"}"),
        ("facts/n2.json", "{\"dc\": \"lon\"}"),
    ];
    let old = common::write_tree(
        "diff",
        "old",
        &[("manifests/site.pp", site)],
        &[
            facts[0],
            facts[1],
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'port' to 80\n  when dc ams { bind 'mirror' to 'a' }\n}\n",
            ),
        ],
    );
    let new = common::write_tree(
        "diff",
        "new",
        &[("manifests/site.pp", site)],
        &[
            facts[0],
            facts[1],
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'port' to 80\n  when dc ams { bind 'mirror' to 'b' }\n  when dc lon { bind 'extra' to true }\n}\n",
            ),
        ],
    );
    let (old, new) = (old.to_string_lossy(), new.to_string_lossy());
    let nodes = format!("{old}/facts");
    let (code, out, err) = pbc(&["diff", &old, &new, "--nodes", &nodes, "--all"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "n1 (production)\n  mirror: \"a\" -> \"b\"\nn2 (production)\n  extra: (not bound) -> true\n"
    );
    let (code, out, _) = pbc(&["diff", &old, &new, "--nodes", &nodes, "port"]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out, _) = pbc(&["diff", &old, &old, "--nodes", &nodes, "--all"]);
    assert_eq!((code, out.as_str()), (0, ""));
    // The same from the models each tree compiles to, and from a model against a tree.
    let (old_model, new_model) = (format!("{old}/model.json"), format!("{new}/model.json"));
    for (tree, model) in [(&old, &old_model), (&new, &new_model)] {
        let (code, _, err) = pbc(&["compile", "--compact", "-o", model, tree]);
        assert_eq!(code, 0, "{err}");
    }
    let expected =
        "n1 (production)\n  mirror: \"a\" -> \"b\"\nn2 (production)\n  extra: (not bound) -> true\n";
    for args in [
        vec!["diff", "--model", &old_model, "--model", &new_model],
        vec!["diff", &old_model, &new_model],
        vec!["diff", &old_model, &new],
    ] {
        let (code, out, err) = pbc(&[&args[..], &["--nodes", &nodes, "--all"]].concat());
        assert_eq!((code, out.as_str()), (1, expected), "{args:?}: {err}");
    }
    let (code, _, err) = pbc(&[
        "diff", "--model", &old_model, &new, "--nodes", &nodes, "--all",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = pbc(&[
        "lookup", "-C", &old, "--nodes", &nodes, "--facts", &nodes, "port",
    ]);
    assert_eq!(code, 2, "{err}");
}

/// `lookup --nodes`: a node whose facts cannot be read gets its own line with the error under
/// `*`, the other nodes are answered, and the exit status says something failed; `diff
/// --format json` prints a JSON line per node that differs.
/// `lookup --nodes` and `diff` answer many nodes some hundreds at a time and write each part
/// as it is done: over several parts, with an environment first met in a later part (loaded
/// then, while the first stays in use) and a node whose facts are broken, every node gets its
/// line in node order, from its own environment; `diff` says exactly the nodes that differ.
#[test]
fn many_nodes_are_answered_a_part_at_a_time_in_node_order() {
    let environments = "site {\n  environment { 'production': envdir => \"${confdir}/prod\" }\n  environment { 'staging': envdir => \"${confdir}/stage\" }\n}\n$environment = $tier ? {\n  'stage' => 'staging',\n  default => 'production',\n}\n";
    let site = "site {\n  categories { node => \"${::fqdn}\", environment => true }\n  bindings => [layer { 'site': include => 'confdir:/default' }]\n}\n";
    let bindings = |env: &str, motd: &str| {
        [
            (format!("{env}/manifests/site.pp"), site.to_string()),
            (
                format!("{env}/bindings/default.pp"),
                format!("bindings default {{\n  bind 'motd' to \"${{::fqdn}} {motd}\"\n}}\n"),
            ),
        ]
    };
    let count = 600;
    let stage_from = 300;
    let broken = 100;
    let mut files: Vec<(String, String)> = vec![("environments.pp".into(), environments.into())];
    for i in 0..count {
        let tier = if i >= stage_from { "stage" } else { "prod" };
        let facts = if i == broken {
            "{\"tier\": ".to_string()
        } else {
            format!("{{\"tier\": \"{tier}\"}}")
        };
        files.push((format!("facts/n{i:03}.json"), facts));
    }
    let mut old_files = files.clone();
    old_files.extend(bindings("prod", "in production"));
    old_files.extend(bindings("stage", "in staging"));
    let mut new_files = files;
    new_files.extend(bindings("prod", "in production"));
    new_files.extend(bindings("stage", "in staging, changed"));
    let write = |name: &str, files: &[(String, String)]| {
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        common::write_tree("many-nodes", name, &[], &refs)
    };
    let old = write("old", &old_files);
    let new = write("new", &new_files);
    let (old, new) = (old.to_string_lossy(), new.to_string_lossy());
    let nodes = format!("{old}/facts");

    let (code, out, err) = pbc(&["lookup", "-C", &old, "--nodes", &nodes, "motd"]);
    assert_eq!(code, 1, "one node's facts are broken: {err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line per node"))
        .collect();
    assert_eq!(lines.len(), count);
    for (i, line) in lines.iter().enumerate() {
        let node = format!("n{i:03}");
        assert_eq!(line["node"], node.as_str(), "line {i}");
        if i == broken {
            let why = line["errors"]["*"].as_str().unwrap_or_default();
            assert!(why.starts_with("INVALID_FACTS: "), "{line}");
            continue;
        }
        let (environment, motd) = if i >= stage_from {
            ("staging", format!("{node} in staging"))
        } else {
            ("production", format!("{node} in production"))
        };
        assert_eq!(line["environment"], environment, "{line}");
        assert_eq!(line["values"]["motd"], motd.as_str(), "{line}");
    }
    assert!(
        err.contains("1 of 600 nodes have keys that failed"),
        "{err}"
    );

    let (code, out, err) = pbc(&["diff", &old, &new, "--nodes", &nodes, "motd"]);
    assert_eq!(code, 1, "{err}");
    let expected: String = (stage_from..count)
        .map(|i| {
            format!("n{i:03} (staging)\n  motd: \"n{i:03} in staging\" -> \"n{i:03} in staging, changed\"\n")
        })
        .collect();
    assert_eq!(out, expected);
    assert!(err.contains("300 of 600 nodes differ"), "{err}");

    // Given where to write, the library writes each part of 256 nodes as it is answered and
    // returns no output of its own; `diff` writes a part for each part on both sides.
    use puppet_bindings::inject::query::{LookupOptions, OutputSink};
    use std::sync::{Arc, Mutex};
    /// The number of lines of each write.
    struct Parts(Arc<Mutex<Vec<usize>>>);
    impl std::io::Write for Parts {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let lines = bytes.iter().filter(|b| **b == b'\n').count();
            self.0.lock().expect("not poisoned").push(lines);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let parts = Arc::new(Mutex::new(Vec::new()));
    let opts = LookupOptions {
        keys: vec!["motd".into()],
        tree: old.to_string().into(),
        nodes: Some(nodes.clone().into()),
        quiet: true,
        output: Some(OutputSink(Arc::new(Mutex::new(Parts(parts.clone()))))),
        ..Default::default()
    };
    let options = puppet_bindings::Options::default();
    let outcome = puppet_bindings::inject::command::run(&opts, &options);
    assert_eq!((outcome.status, outcome.stdout.as_str()), (1, ""));
    assert_eq!(*parts.lock().expect("not poisoned"), [256, 256, 88]);
    parts.lock().expect("not poisoned").clear();
    let outcome = puppet_bindings::inject::diff::run(
        &opts,
        std::path::Path::new(old.as_ref()),
        std::path::Path::new(new.as_ref()),
        std::path::Path::new(&nodes),
        None,
        false,
        &options,
    );
    assert_eq!((outcome.status, outcome.stdout.as_str()), (1, ""));
    // The first part has no staging node (nothing to write), the second 212 (nodes 300 to
    // 511), the third 88: two lines each.
    assert_eq!(*parts.lock().expect("not poisoned"), [424, 176]);
}

#[test]
fn every_node_gets_its_line_and_diff_speaks_json() {
    let site = "site {\n  categories { dc => $::dc }\n}\n";
    let bindings =
        |v: &str| format!("bindings default {{\n  when dc ams {{ bind 'mirror' to '{v}' }}\n}}\n");
    let (a, b) = (bindings("a"), bindings("b"));
    let facts: [(&str, &str); 2] = [
        ("facts/n1.json", "{\"dc\": \"ams\"}"),
        ("facts/n2.json", "{\"dc\": "),
    ];
    let old = common::write_tree(
        "nodes",
        "old",
        &[("manifests/site.pp", site)],
        &[facts[0], facts[1], ("bindings/default.pp", &a)],
    );
    let new = common::write_tree(
        "nodes",
        "new",
        &[("manifests/site.pp", site)],
        &[facts[0], facts[1], ("bindings/default.pp", &b)],
    );
    let (old, new) = (old.to_string_lossy(), new.to_string_lossy());
    let nodes = format!("{old}/facts");
    let (code, out, _) = pbc(&["lookup", "-C", &old, "--nodes", &nodes, "mirror"]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["node"], "n1");
    assert_eq!(lines[0]["values"]["mirror"], "a");
    assert_eq!(lines[1]["node"], "n2");
    let why = lines[1]["errors"]["*"].as_str().expect("the node's error");
    assert!(why.starts_with("INVALID_FACTS"), "{why}");

    let (code, out, _) = pbc(&[
        "diff", &old, &new, "--nodes", &nodes, "mirror", "--format", "json",
    ]);
    assert_eq!(code, 1);
    let line: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON line");
    assert_eq!(line["node"], "n1");
    assert_eq!(line["keys"]["mirror"]["old"]["value"], "a");
    assert_eq!(line["keys"]["mirror"]["new"]["value"], "b");
}

/// What goes with `--model` and `--cache` and what does not: a model is read without a tree
/// (no `-C`, no trailing tree, no `--agent-environment`, which only environments.pp reads), and
/// a cache is a tree's model written to a file (`-o`, a directory, not `--compact`). Each is a
/// usage error (exit 2) that names the problem; the JSON model and its cache answer alike.
#[test]
fn model_and_cache_flags_go_together_as_documented() {
    let scratch = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("model-flags");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let model = scratch.join("model.json").to_string_lossy().into_owned();
    let cache = scratch.join("model.pbcm").to_string_lossy().into_owned();
    let tree = "examples/quickstart";
    assert_eq!(pbc(&["compile", "-C", tree, "-o", &model]).0, 0);
    assert_eq!(pbc(&["compile", "-C", tree, "--cache", "-o", &cache]).0, 0);
    let facts = "examples/quickstart/facts/web01.json";
    let from = |m: &str| pbc(&["lookup", "--model", m, "--facts", facts, "ntp::servers"]);
    let (code, json_out, err) = from(&model);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from(&cache).1, json_out);

    for args in [
        vec!["lookup", "--model", &model, "-C", tree, "ntp::servers"],
        vec!["lookup", "--model", &model, "ntp::servers", tree],
        vec![
            "lookup",
            "--model",
            &model,
            "--agent-environment",
            "x",
            "ntp::servers",
        ],
        vec!["compile", "-C", tree, "--cache"],
        vec!["compile", "-C", tree, "--cache", "--compact", "-o", &cache],
        // A model holds the global Hiera level it was compiled with.
        vec![
            "lookup",
            "--model",
            &model,
            "--hiera-config",
            "examples/control-repo/hiera.yaml",
            "ntp::servers",
        ],
    ] {
        let (code, out, err) = pbc(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.is_empty(), "{args:?}");
    }
    let (code, _, err) = pbc(&[
        "compile",
        "--cache",
        "-o",
        &cache,
        "examples/quickstart/bindings/default.pp",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--cache indexes a tree's model"), "{err}");
}
