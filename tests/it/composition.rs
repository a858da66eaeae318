//! One composition (D18): `pbc check` and `pbc lookup` ask the same engine, so they agree with
//! each other and with Puppet 3.4's binder. One test per case of the issue "One composition",
//! each on the shared setup: categories `dc => $::dc`, the layer `site`
//! (`confdir:/default`) above `modules` (`module:/*::default`), a node `n1.example.com` in
//! `ams`.

use crate::common;

use puppet_bindings::diag::{Diagnostic, Severity};
use puppet_bindings::inject::command::run;
use puppet_bindings::inject::query::LookupOptions;
use std::path::{Path, PathBuf};

const SITE: &str = "site {\n  categories { dc => $::dc }\n  bindings => [\n    layer { 'site': include => 'confdir:/default' },\n    layer { 'modules': include => 'module:/*::default' },\n  ]\n}\n";

/// A tree under a fresh directory: the shared site plus `files` (path, text).
fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::write_tree("composition", name, &[("manifests/site.pp", SITE)], files)
}

/// `pbc check` on the tree: (severity, code) of every finding.
fn check(root: &Path) -> Vec<(Severity, &'static str)> {
    let report =
        puppet_bindings::check_paths(&[root.to_path_buf()], &Default::default()).expect("readable");
    report
        .diagnostics
        .iter()
        .map(|d: &Diagnostic| (d.severity, d.code))
        .collect()
}

/// `pbc lookup KEYS` for `n1.example.com` in data center `dc`: (stdout, stderr, status).
fn lookup(root: &Path, dc: &str, keys: &[&str]) -> (String, String, u8) {
    lookup_with(root, dc, keys, false)
}

fn lookup_with(root: &Path, dc: &str, keys: &[&str], explain: bool) -> (String, String, u8) {
    let facts = root.join(format!("facts-{dc}.json"));
    std::fs::write(
        &facts,
        format!("{{\"fqdn\": \"n1.example.com\", \"dc\": \"{dc}\"}}"),
    )
    .expect("write facts");
    let outcome = run(
        &LookupOptions {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            tree: root.to_path_buf(),
            facts: Some(facts),
            explain,
            ..LookupOptions::default()
        },
        &Default::default(),
    );
    let stderr = outcome.stderr(false);
    (outcome.stdout, stderr, outcome.status)
}

/// Item 1: a conflict in a lower layer that a higher layer's binding beats is no error.
#[test]
fn a_conflict_a_higher_layer_beats_is_no_error() {
    let root = tree(
        "higher_layer_beats_conflict",
        &[
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'a' to 42\n}\n",
            ),
            (
                "modules/m1/bindings/default.pp",
                "bindings m1::default {\n  bind 'a' to 1\n}\n",
            ),
            (
                "modules/m2/bindings/default.pp",
                "bindings m2::default {\n  bind 'a' to 2\n}\n",
            ),
        ],
    );
    assert_eq!(check(&root), []);
    assert_eq!(lookup(&root, "ams", &["a"]), ("42\n".into(), "".into(), 0));
}

/// Item 2: an abstract binding made concrete only in `ams` is a warning for `check`, and a
/// node in `ams` gets the concrete value (and every other key).
#[test]
fn an_abstract_binding_made_concrete_for_some_requests() {
    let root = tree(
        "abstract_for_some",
        &[(
            "bindings/default.pp",
            "bindings default {\n  bind abstract 'x'\n  when dc 'ams' { bind 'x' to 1 }\n  bind 'y' to 2\n}\n",
        )],
    );
    fails_for_some(
        &root,
        "ABSTRACT_NOT_OVERRIDDEN",
        &["x", "y"],
        "1\n2\n",
        "null\n2\n",
    );
}

/// `check` warns (only) with `code`; a node in `ams` gets every key (`in_ams`), a node in
/// `lon` fails the first key alone with `code` (its line is `null`) and gets the others
/// (`in_lon`).
fn fails_for_some(root: &Path, code: &str, keys: &[&str], in_ams: &str, in_lon: &str) {
    let found = check(root);
    assert_eq!(
        found.iter().map(|(s, c)| (*s, *c)).collect::<Vec<_>>(),
        [(Severity::Warning, code)]
    );
    assert_eq!(lookup(root, "ams", keys), (in_ams.into(), "".into(), 0));
    let (stdout, stderr, status) = lookup(root, "lon", keys);
    assert_eq!((stdout.as_str(), status), (in_lon, 1));
    assert!(stderr.contains(code), "{stderr}");
}

/// Item 3: an override that loses is irrelevant.
#[test]
fn an_override_that_loses_is_irrelevant() {
    let root = tree(
        "override_loses",
        &[(
            "bindings/default.pp",
            "bindings default {\n  bind override 'x' to 1\n  when dc 'ams' { bind 'x' to 2 }\n  bind 'y' to 3\n}\n",
        )],
    );
    fails_for_some(
        &root,
        "UNRESOLVED_OVERRIDE",
        &["x", "y"],
        "2\n3\n",
        "null\n3\n",
    );
}

/// Item 4: a tie that a more specific binding beats for some requests is a warning; the
/// requests it beats get the specific value, the others fail that key alone.
#[test]
fn a_conflict_beaten_for_some_requests() {
    let root = tree(
        "conflict_for_some",
        &[(
            "bindings/default.pp",
            "bindings default {\n  when dc 'ams' { bind 'a' to 3 }\n  bind 'a' to 1\n  bind 'a' to 2\n  bind 'y' to 4\n}\n",
        )],
    );
    let report = puppet_bindings::check_paths(std::slice::from_ref(&root), &Default::default())
        .expect("readable");
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics);
    };
    assert_eq!(
        (d.severity, d.code),
        (Severity::Warning, "CONFLICTING_BINDINGS")
    );
    assert!(
        d.notes.iter().any(|n| n.contains("`dc` is not `'ams'`")),
        "{:?}",
        d.notes
    );
    assert_eq!(
        lookup(&root, "ams", &["a", "y"]),
        ("3\n4\n".into(), "".into(), 0)
    );
    let (stdout, stderr, status) = lookup(&root, "lon", &["a", "y"]);
    assert_eq!((stdout.as_str(), status), ("null\n4\n", 1));
    assert!(stderr.contains("CONFLICTING_BINDINGS"), "{stderr}");
}

/// The same tie with nothing to beat it fails every request: an error for `check`, and still
/// only that key for `lookup`.
#[test]
fn a_conflict_nothing_beats() {
    let root = tree(
        "conflict_for_all",
        &[(
            "bindings/default.pp",
            "bindings default {\n  bind 'a' to 1\n  bind 'a' to 2\n  bind 'y' to 4\n}\n",
        )],
    );
    assert_eq!(check(&root), [(Severity::Error, "CONFLICTING_BINDINGS")]);
    let (stdout, stderr, status) = lookup(&root, "ams", &["a", "y"]);
    assert_eq!((stdout.as_str(), status), ("null\n4\n", 1));
    assert!(stderr.contains("CONFLICTING_BINDINGS"), "{stderr}");
}

/// Item 6: `inject('name')` is ARM-8's named binding; `inject(Type, 'name')` the typed one.
#[test]
fn inject_takes_a_name() {
    let root = tree(
        "inject_name",
        &[(
            "bindings/default.pp",
            "bindings default {\n  bind 'a' to 41\n  bind 'b' to inject('a') + 1\n  bind Integer, 'c' to 7\n  bind 'd' to inject(Integer, 'c')\n}\n",
        )],
    );
    assert_eq!(check(&root), []);
    assert_eq!(
        lookup(&root, "ams", &["b", "d"]),
        ("42\n7\n".into(), "".into(), 0)
    );
}

/// Item 7: Array multibind names count (D18): two of one name and rank are an error for every
/// request, and `priority_on_named => false` keeps both.
#[test]
fn array_contributions_of_one_name() {
    let root = tree(
        "array_names",
        &[(
            "bindings/default.pp",
            "bindings default {\n  multibind Array[Data], 'arr'\n  bind 'n' to 1 in 'arr'\n  bind 'n' to 2 in 'arr'\n  multibind Array[Data], 'all' { priority_on_named => false }\n  bind 'n' to 1 in 'all'\n  bind 'n' to 2 in 'all'\n}\n",
        )],
    );
    assert_eq!(check(&root), [(Severity::Error, "MULTIBIND_CONTRIBUTION")]);
    let (stdout, stderr, status) = lookup(&root, "ams", &["arr", "all"]);
    assert_eq!((stdout.as_str(), status), ("null\n[1,2]\n", 1), "{stderr}");
    assert!(stderr.contains("MULTIBIND_CONTRIBUTION"), "{stderr}");
}

/// Item 8: a typo in a wildcard include drops every module's bindings; `check` warns about the
/// include and about each file no layer includes, and `lookup` names the file that binds the
/// key it cannot find.
#[test]
fn a_typo_in_an_include_is_reported() {
    let root = tree(
        "include_typo",
        &[
            (
                "manifests/site.pp",
                "site {\n  categories { dc => $::dc }\n  bindings => [\n    layer { 'site': include => 'confdir:/default' },\n    layer { 'modules': include => 'module:/*::defualt' },\n  ]\n}\n",
            ),
            ("bindings/default.pp", "bindings default {\n  bind 'a' to 1\n}\n"),
            (
                "modules/ntp/bindings/default.pp",
                "bindings ntp::default {\n  bind 'ntp::servers' to ['a']\n}\n",
            ),
        ],
    );
    let report = puppet_bindings::check_paths(std::slice::from_ref(&root), &Default::default())
        .expect("readable");
    let found: Vec<(Severity, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.severity, d.code))
        .collect();
    assert_eq!(
        found,
        [
            (Severity::Warning, "INCLUDE_MATCHES_NOTHING"),
            (Severity::Warning, "NOT_IN_ANY_LAYER")
        ]
    );
    assert!(
        report.diagnostics[0]
            .notes
            .iter()
            .any(|n| n.contains("did you mean `module:/*::default`")),
        "{:?}",
        report.diagnostics[0].notes
    );
    let (_, stderr, status) = lookup(&root, "ams", &["ntp::servers"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains(
            "`modules/ntp/bindings/default.pp` binds it, but no layer includes that file"
        ),
        "{stderr}"
    );
    let (stdout, _, _) = lookup_with(&root, "ams", &["ntp::servers"], true);
    assert!(
        stdout.contains("bound in modules/ntp/bindings/default.pp, which no layer includes"),
        "{stdout}"
    );
}

/// Item 9: an environment without its directory fails `check` as it fails `lookup` for a
/// request that selects it.
#[test]
fn a_missing_envdir_fails_check_and_lookup() {
    let root = tree(
        "missing_envdir",
        &[
            (
                "environments.pp",
                "site {\n  environment { 'production': envdir => \"${confdir}/master\" }\n}\n",
            ),
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'a' to 1\n}\n",
            ),
        ],
    );
    // (The files that no environment then reads are warned about too.)
    let found = check(&root);
    assert!(
        found.contains(&(Severity::Error, "ENVDIR_NOT_FOUND")),
        "{found:?}"
    );
    let (_, stderr, status) = lookup(&root, "ams", &["a"]);
    assert_eq!(status, 1);
    assert!(stderr.contains("ENVDIR_NOT_FOUND"), "{stderr}");
}

/// Item 10: environments.pp that needs an agent's environment gives the same error in `check`
/// and in `lookup` without one, with the caret on the unset variable and how to guard it; the
/// check then judges each file alone, inventing nothing across environments.
#[test]
fn environments_pp_has_one_verdict() {
    let branch = "bindings default {\n  bind 'a' to 'branch'\n}\n";
    let root = tree(
        "agent_environment",
        &[
            (
                "environments.pp",
                "if $agent_environment =~ /^feature_/ {\n  $environment = $agent_environment\n}\nsite {\n  dynamic_environments { \"${confdir}/environments\": }\n}\n",
            ),
            ("bindings/default.pp", "bindings default {\n  bind 'a' to 1\n}\n"),
            ("environments/feature_x/bindings/default.pp", branch),
            ("environments/feature_y/bindings/default.pp", branch),
        ],
    );
    let report = puppet_bindings::check_paths(std::slice::from_ref(&root), &Default::default())
        .expect("readable");
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics);
    };
    assert_eq!((d.severity, d.code), (Severity::Error, "EVAL_TYPE_ERROR"));
    let source = report.files.source(d.span.file);
    assert_eq!(
        &source[d.span.start as usize..d.span.end as usize],
        "$agent_environment"
    );
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("$agent_environment != undef and")),
        "{:?}",
        d.notes
    );
    let (_, stderr, status) = lookup(&root, "ams", &["a"]);
    assert_eq!(status, 1);
    assert!(stderr.contains("EVAL_TYPE_ERROR"), "{stderr}");
    // An agent that asks for a branch gets it.
    let facts = root.join("facts-ams.json");
    let outcome = run(
        &LookupOptions {
            keys: vec!["a".into()],
            tree: root.clone(),
            facts: Some(facts),
            agent_environment: Some("feature_x".into()),
            ..LookupOptions::default()
        },
        &Default::default(),
    );
    assert_eq!(
        (outcome.stdout.as_str(), outcome.status),
        ("\"branch\"\n", 0)
    );
}

/// Item 11: a bindings file that does not parse contributes "unknown": one syntax error, a
/// note saying the rules across files were limited by it, and no finding it could change.
#[test]
fn a_file_that_does_not_parse_is_unknown() {
    let root = tree(
        "unparsed",
        &[
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'ntp::servers' to ['a', 'b'\n  bind 'ntp::mode' to 'client'\n  when dc 'ams' { bind 'x' to 1 }\n}\n",
            ),
            (
                "modules/ntp/bindings/default.pp",
                "bindings ntp::default {\n  bind abstract 'ntp::mode'\n  bind 'ntp::servers' to ['pool']\n}\n",
            ),
        ],
    );
    let report = puppet_bindings::check_paths(std::slice::from_ref(&root), &Default::default())
        .expect("readable");
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics);
    };
    assert_eq!(d.code, "SYNTAX_ERROR");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("what it binds is unknown")),
        "{:?}",
        d.notes
    );
}

/// A category that indexes a fact, looked up without facts: the error says no facts were given.
#[test]
fn a_category_without_facts_says_so() {
    let root = tree(
        "no_facts",
        &[
            (
                "manifests/site.pp",
                "site {\n  categories { dc => $facts['location']['dc'] }\n}\n",
            ),
            (
                "bindings/default.pp",
                "bindings default {\n  bind 'a' to 1\n}\n",
            ),
        ],
    );
    let outcome = run(
        &LookupOptions {
            keys: vec!["a".into()],
            tree: root.clone(),
            ..LookupOptions::default()
        },
        &Default::default(),
    );
    assert_eq!(outcome.status, 1);
    assert!(
        outcome.stderr(false).contains("no facts were given"),
        "{}",
        outcome.stderr(false)
    );
}

/// ARM-9 data (D20): files one data path gives for different requests never meet, so they are
/// no conflict, while a `bind` of the same key under the same category value meets the data
/// file wherever its path names it (an error), and file names compare with case.
#[test]
fn data_files_meet_only_where_their_paths_name_them() {
    let hiera = "version: 3\nhierarchy:\n  - dc\n  - other/${dc}\n";
    let site = "site {\n  categories { dc => $::dc }\n  bindings => [\n    layer { 'modules': include => ['module-hiera:/*/', 'module:/*::default'] },\n  ]\n}\n";
    let tree = |name: &str, files: &[(&str, &str)]| {
        common::write_tree("composition", name, &[("manifests/site.pp", site)], files)
    };
    let root = tree(
        "data_paths",
        &[
            ("modules/m/hiera.yaml", hiera),
            ("modules/m/data/dc/ams.yaml", "m::a: 'from ams'\n"),
            ("modules/m/data/dc/LON.yaml", "m::a: 'from LON'\n"),
            ("modules/m/data/other/ams.yaml", "m::b: 'private ams'\n"),
            ("modules/m/data/other/lon.yaml", "m::b: 'private lon'\n"),
        ],
    );
    assert_eq!(check(&root), vec![]);
    assert_eq!(
        lookup(&root, "ams", &["m::a", "m::b"]).0,
        "\"from ams\"\n\"private ams\"\n"
    );
    // `lon` does not read `LON.yaml`, though categories compare ignoring case.
    let (out, _, status) = lookup(&root, "lon", &["m::a", "m::b"]);
    assert_eq!((out.as_str(), status), ("null\n\"private lon\"\n", 1));
    assert_eq!(lookup(&root, "LON", &["m::a"]).0, "\"from LON\"\n");

    let root = tree(
        "data_meets_bind",
        &[
            ("modules/m/hiera.yaml", hiera),
            ("modules/m/data/dc/ams.yaml", "m::a: 'from ams'\n"),
            (
                "modules/m/bindings/default.pp",
                "bindings m::default {\n  when dc ams { bind 'm::a' to 'bound' }\n}\n",
            ),
        ],
    );
    assert_eq!(
        check(&root),
        vec![(Severity::Error, "CONFLICTING_BINDINGS")]
    );
}

/// Keys are judged a run at a time on every core: with more keys than several runs hold, each
/// conflict is still found once, on its own key, in file order.
#[test]
fn every_key_is_judged_when_keys_are_shared_out() {
    let keys = 1_500;
    let mut text = String::from("bindings default {\n");
    for k in 0..keys {
        text.push_str(&format!("  bind 'k{k}' to 1\n  bind 'k{k}' to 2\n"));
    }
    text.push_str("}\n");
    let root = tree("many_keys", &[("bindings/default.pp", text.as_str())]);
    let report = puppet_bindings::check_paths(&[root], &Default::default()).expect("readable");
    let lines: Vec<usize> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "CONFLICTING_BINDINGS")
        .map(|d| report.files.line_col(d.span.file, d.span.start).0)
        .collect();
    // The second binding of key k is on line 2k + 3.
    let expected: Vec<usize> = (0..keys).map(|k| 2 * k + 3).collect();
    assert_eq!(lines, expected);
}
