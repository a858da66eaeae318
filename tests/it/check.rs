//! `pbc check` over `corpus/check/`: every file in `valid/` must check clean (no errors, no
//! warnings); every file in `invalid/` must produce at least one finding, and its rendered
//! diagnostics are snapshotted. Each directory in `trees/` is checked as one configuration tree
//! (roles from the layout: `environments.pp`, `bindings/**`, `modules/*/bindings/**`);
//! `valid_*` trees must be clean, the others are snapshotted. The ARM-8 examples of the parse
//! corpus are checked in place against a list of the spec's own mistakes.

use crate::common;

use common::{arm8_example_names, relative, snapshot_settings, sorted_dirs, ARM8_DIR};
use puppet_bindings::{check_paths, check_tree_files, diag, tree};
use std::path::PathBuf;

fn check(paths: &[PathBuf]) -> (String, usize, usize) {
    let report = check_paths(paths, &Default::default()).expect("corpus is readable");
    let errors = report.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = report.diagnostics.len() - errors;
    let mut out = diag::render_text(&report.files, &report.diagnostics);
    out.push_str(&diag::summary_line(&report.diagnostics, report.file_count));
    (out, errors, warnings)
}

#[test]
fn check_corpus() {
    snapshot_settings().bind(|| {
        insta::glob!("../../corpus/check", "{valid,invalid}/*.pp", |path| {
            let rel = relative(path);
            let (out, errors, warnings) = check(std::slice::from_ref(&rel));
            if rel.to_string_lossy().contains("/valid/") {
                assert!(
                    errors + warnings == 0,
                    "{} must check clean:\n{out}",
                    rel.display()
                );
            } else {
                assert!(
                    errors + warnings > 0,
                    "{} must produce a finding",
                    rel.display()
                );
            }
            insta::assert_snapshot!(out);
        });
    });
}

#[test]
fn check_trees() {
    let dirs = sorted_dirs("corpus/check/trees");
    let settings = snapshot_settings();
    settings.bind(|| {
        for dir in dirs {
            let name = dir
                .file_name()
                .expect("dir name")
                .to_string_lossy()
                .into_owned();
            let (out, errors, warnings) = check(&[relative(&dir)]);
            if name.starts_with("valid_") {
                assert!(
                    errors + warnings == 0,
                    "tree {name} must check clean:\n{out}"
                );
            } else {
                assert!(errors + warnings > 0, "tree {name} must produce a finding");
            }
            insta::assert_snapshot!(format!("check_tree@{name}"), out);
        }
    });
}

/// The same tree gives byte-identical output whatever the order of the paths.
#[test]
fn output_does_not_depend_on_argument_order() {
    let base = PathBuf::from("corpus/check/trees/site_rules");
    let a = [
        base.join("bindings"),
        base.join("manifests"),
        base.join("environments.pp"),
    ];
    let mut b = a.clone();
    b.reverse();
    assert_eq!(check(&a).0, check(&b).0);
}

/// Every ARM-8 example (`corpus/parse/valid/arm8/`, one file per spec section) checks clean,
/// except where the spec's own text breaks a rule: the findings there are exactly these.
#[test]
fn arm8_examples_check_clean_but_for_the_spec_own_mistakes() {
    let expected: &[(&str, &[(&str, usize)])] = &[
        // Several sections' blocks in one file.
        (
            "bindings_names.pp",
            &[
                ("MULTIPLE_BINDINGS_IN_FILE", 5),
                ("MULTIPLE_BINDINGS_IN_FILE", 7),
            ],
        ),
        // Two sections bind Web[one]'s parameters to Sql[one].
        (
            "classes_parameters.pp",
            &[("DUPLICATE_PARAMETERS_PRODUCER", 27)],
        ),
        // The "producers" multibind is never declared in the spec.
        ("producers_queries.pp", &[("UNKNOWN_MULTIBIND", 7)]),
        // "Typing Variables": `b => 'bananas'` is the spec's example of an error.
        ("variables.pp", &[("INCOMPATIBLE_TYPE", 10)]),
        // `virtual` is declared by a site the example does not show (a warning without one).
        (
            "when.pp",
            &[
                ("UNKNOWN_CATEGORY", 7),
                ("UNKNOWN_CATEGORY", 13),
                ("UNKNOWN_CATEGORY", 16),
            ],
        ),
    ];
    let dir = PathBuf::from(ARM8_DIR);
    for name in arm8_example_names() {
        let files = tree::discover(&[dir.join(&name)], &Default::default()).expect("readable");
        let report = check_tree_files(&files, &Default::default()).expect("readable");
        let found: Vec<(&str, usize)> = report
            .diagnostics
            .iter()
            .map(|d| (d.code, report.files.line_col(d.span.file, d.span.start).0))
            .collect();
        let want = expected
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(&[][..], |(_, w)| *w);
        assert_eq!(found, want, "{name}");
    }
}

/// Options belong to the command that is given them, not to the process: three checks of one
/// tree run at once in one process, each with its own (links followed or not, a file size
/// limit), and each gets what its own options say (issue 58: a server or a language server
/// runs many commands at once).
#[test]
fn commands_at_once_each_read_by_their_own_options() {
    use puppet_bindings::source::FileAccess;
    use puppet_bindings::Options;
    let base = tempfile::tempdir().expect("temporary directory");
    let (tree, outside) = (base.path().join("tree"), base.path().join("outside"));
    for (path, text) in [
        (
            tree.join("bindings/default.pp"),
            "bindings site::default {\n  bind 'x' to 'site'\n}\n",
        ),
        (
            outside.join("evil/bindings/default.pp"),
            "bindings evil::default {\n  bind 'y' to 'evil'\n}\n",
        ),
    ] {
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("directory");
        std::fs::write(&path, text).expect("written");
    }
    std::fs::create_dir_all(tree.join("modules")).expect("modules");
    std::os::unix::fs::symlink(outside.join("evil"), tree.join("modules/evil")).expect("link");
    let links_kept_out = Options::default();
    let mut links_followed = Options::default();
    links_followed.files.follow_symlinks = true;
    let tiny_files = Options {
        files: FileAccess::default().with_max_file_size(10),
        ..Options::default()
    };
    let skipped = |options: &Options| {
        let report = check_paths(std::slice::from_ref(&tree), options).expect("readable");
        let skipped = report
            .diagnostics
            .iter()
            .any(|d| d.code == diag::codes::SYMLINK_NOT_FOLLOWED);
        (skipped, report.file_count)
    };
    std::thread::scope(|scope| {
        let runs = [
            scope.spawn(|| {
                (0..20)
                    .map(|_| skipped(&links_kept_out))
                    .collect::<Vec<_>>()
            }),
            scope.spawn(|| {
                (0..20)
                    .map(|_| skipped(&links_followed))
                    .collect::<Vec<_>>()
            }),
        ];
        let refused = scope.spawn(|| {
            (0..20)
                .map(|_| check_paths(std::slice::from_ref(&tree), &tiny_files).is_err())
                .collect::<Vec<_>>()
        });
        let [kept_out, followed] = runs.map(|r| r.join().expect("no panic"));
        assert!(kept_out.iter().all(|&r| r == (true, 1)), "{kept_out:?}");
        assert!(followed.iter().all(|&r| r == (false, 2)), "{followed:?}");
        assert!(refused.join().expect("no panic").iter().all(|&e| e));
    });
}

/// A check that keeps its parses for the next (`pbc lsp` checks the tree again at each
/// keystroke) reports what a check without them reports, while files change: each tree of
/// the corpus checked with one memo throughout, as each of its files is broken (a stray `}`),
/// doubled (its text twice: names bound twice, blocks declared twice) and given back, each
/// change as the editor's unsaved buffer, with the tree's walks and files kept as read. The
/// reports are compared as `pbc check` prints them.
#[test]
fn a_check_with_the_last_checks_parses_reports_what_a_fresh_one_does() {
    use puppet_bindings::load::{check_paths_kept, CheckMemo};
    use puppet_bindings::source::{KeptDisk, Overlay};
    use std::sync::Arc;
    let printed = |report: &puppet_bindings::CheckReport| {
        let mut out = diag::render_text(&report.files, &report.diagnostics);
        out.push_str(&diag::summary_line(&report.diagnostics, report.file_count));
        out
    };
    let mut compared = 0;
    for tree in sorted_dirs("corpus/check/trees") {
        let root = std::fs::canonicalize(&tree).expect("a tree");
        let mut memo = CheckMemo::default();
        let files = crate::common::files_below(&root, |path| {
            path.extension()
                .is_some_and(|e| e == "pp" || e == "yaml" || e == "json")
        });
        // The disk as listed and read is kept too, as `pbc lsp` keeps it while the editor
        // watches the tree (nothing here changes on disk: only the editor's buffers change).
        let disk = KeptDisk::new();
        let mut check_as = |memo: &mut CheckMemo, changed: Option<(&PathBuf, String)>| {
            let mut options = puppet_bindings::Options::default();
            if let Some((path, text)) = changed {
                let texts = [(path.clone(), Arc::<str>::from(text))];
                options.files.overlay = Overlay::new(texts.into_iter().collect());
            }
            let paths = std::slice::from_ref(&root);
            let fresh = check_paths(paths, &options).expect("readable");
            options.files.kept = Some(disk.clone());
            let kept = check_paths_kept(paths, Some(memo), &options).expect("readable");
            assert_eq!(
                printed(&kept),
                printed(&fresh),
                "{}: the check with the memo differs",
                tree.display()
            );
            compared += 1;
        };
        check_as(&mut memo, None);
        check_as(&mut memo, None);
        // Nothing changed: nothing is parsed again.
        assert_eq!(memo.parsed_last(), 0, "{}", tree.display());
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a file");
            check_as(&mut memo, Some((file, format!("{text}\n}}\n"))));
            // Only the file changed is parsed again (none for data, read with its
            // `hiera.yaml`), unless the tree's files are another list: a broken
            // environments.pp leaves the environments unknown, and the tree is one.
            assert!(
                memo.parsed_last() <= 1 || file.ends_with("environments.pp"),
                "{}",
                file.display()
            );
            check_as(&mut memo, Some((file, format!("{text}\n{text}"))));
            check_as(&mut memo, None);
        }
    }
    assert!(compared > 100, "{compared} checks compared");
}

/// Every edit pbc offers with a finding (a did-you-mean, a missing `to`, `=>` for `to`: what
/// an editor offers as a quick fix, JSON and SARIF list), anywhere in the corpus, applied
/// alone to its file as the editor would (an unsaved buffer): that finding is gone, and no
/// syntax error is new. There are fixes to try in the trees, the invalid checks and the
/// invalid parses.
#[test]
fn every_fix_the_corpus_gets_removes_its_finding() {
    use std::collections::BTreeMap;
    use std::sync::Arc;
    let cwd = std::env::current_dir().expect("a current directory");
    let mut targets: Vec<PathBuf> = sorted_dirs("corpus/check/trees")
        .iter()
        .map(|d| relative(d))
        .collect();
    let mut dirs = vec![
        PathBuf::from("corpus/check/invalid"),
        PathBuf::from("corpus/parse/invalid"),
        PathBuf::from("corpus/validate"),
    ];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("corpus")
            .map(|e| e.expect("an entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "pp") {
                targets.push(path);
            }
        }
    }
    let syntax = |d: &diag::Diagnostic| d.code == diag::codes::SYNTAX_ERROR;
    let mut tried = 0;
    for target in &targets {
        let paths = std::slice::from_ref(target);
        let report = check_paths(paths, &Default::default()).expect("readable");
        for d in &report.diagnostics {
            let Some(fix) = d.fix.as_ref() else { continue };
            let (span, replacement) = fix
                .edit(&report.files)
                .unwrap_or_else(|| panic!("{}: a fix without a place: {d:?}", target.display()));
            let name = report.files.name(span.file).to_string();
            let mut text = report.files.source(span.file).to_string();
            text.replace_range(span.range(), replacement);
            let mut options = puppet_bindings::Options::default();
            let path = cwd.join(&name);
            options.files.overlay = puppet_bindings::source::Overlay::new(BTreeMap::from([(
                path,
                Arc::<str>::from(text.as_str()),
            )]));
            let after = check_paths(paths, &options).expect("readable");
            let place = |files: &puppet_bindings::span::SourceMap, d: &diag::Diagnostic| {
                (files.name(d.span.file).to_string(), d.code, d.span.start)
            };
            let fixed = place(&report.files, d);
            assert!(
                !after
                    .diagnostics
                    .iter()
                    .any(|a| place(&after.files, a) == fixed && a.message == d.message),
                "{}: the fix of {} `{}` leaves it:\n{}",
                target.display(),
                d.code,
                d.message,
                diag::render_text(&after.files, &after.diagnostics)
            );
            let syntax_before = report.diagnostics.iter().filter(|d| syntax(d)).count();
            let syntax_after = after.diagnostics.iter().filter(|d| syntax(d)).count();
            assert!(
                syntax_after <= syntax_before,
                "{}: the fix of {} `{}` makes a syntax error:\n{}",
                target.display(),
                d.code,
                d.message,
                diag::render_text(&after.files, &after.diagnostics)
            );
            tried += 1;
        }
    }
    assert!(tried >= 25, "only {tried} fixes in the corpus");
}
