//! Limits and hostile input: deep nesting and long chains give one clean diagnostic or a normal
//! parse, and never overflow the stack; what grows with the input (values, recovery, duplicate
//! searches, environments) stays linear or meets a documented limit; files, facts, links and
//! output are handled safely. These run on the default test thread (2 MiB stack) on purpose,
//! in debug and (in CI) release builds. Sizes are chosen so that a quadratic or unbounded
//! version would not finish (no timed assertions).
//!
//! Where each kind of hostile input is tested: a million-term chain of operators through the
//! binary (`million_term_chain_through_the_binary`), YAML alias bombs in data files
//! (`src/data/yaml.rs` `alias_bombs_meet_their_budget`, `corpus/check/trees/hiera5`), sprintf widths (`tests/it/eval.rs`
//! `errors_have_codes`), deep YAML, YAML aliases and endless files as facts
//! (`hostile_facts_are_refused`), lookup chains (`long_lookup_chains_stop_at_a_limit`), nested
//! `or`s (`nested_ors_are_bounded`), thousands of `and`s
//! (`thousands_of_findings_on_one_line_render_briefly`), values that double
//! (`tests/it/eval.rs` `building_values_is_bounded`), collections built step by step
//! (`building_collections_step_by_step_is_linear`), deep produced values (`tests/it/eval.rs`
//! `produced_values_are_bounded`), error recovery (`error_recovery_on_one_long_line_is_linear`),
//! huge category lists (`huge_category_lists_are_checked_linearly`), thousands of environments
//! (`thousands_of_environments_are_checked_linearly`), `compile -o`
//! (`compile_output_is_safe`), write errors (`write_errors_on_standard_output_are_exit_2`),
//! links (`links_out_of_the_tree_are_not_followed`), paths out of the tree
//! (`a_manifest_that_is_not_puppet_is_refused`, `confine_keeps_reads_inside_the_tree`), node
//! names (`hostile_facts_are_refused`), URIs with `..` (`corpus/check/invalid/layers_uris.pp`),
//! deep models (`deep_models_are_read_or_refused`), `pbc serve`'s lines, connections, idle
//! time and models outside `--models` (`tests/it/serve.rs` `wrong_requests_are_refused_with_their_reason`).
//!
//! Hostile input, round two (issue 56; issue 62's items as 62.N), each item and its test:
//! 1 diagnostics without a place in every format (`diagnostics_without_a_place_render_in_every_format`,
//! and `crates/syntax/src/diag/mod.rs` `every_code_renders_without_a_place_in_every_format`); 2 and 10 deep
//! and damaged model caches (`damaged_and_deep_caches_are_refused`, and `src/lower/cache.rs`
//! `a_damaged_cache_is_refused_whatever_bit_is_flipped`,
//! `a_record_of_a_block_the_header_lacks_is_refused`, `a_deep_header_is_refused_before_it_is_parsed`;
//! the `cache` fuzz target); 3 values that share their parts written out
//! (`values_that_share_their_parts_are_not_written_out_past_the_budget`); 4 Hiera interpolation
//! that multiplies (`hiera_interpolation_that_multiplies_meets_the_budget`); 7 one-line data
//! files (`one_line_data_files_are_read_linearly`); 8 long merges
//! (`merging_long_arrays_is_linear`); 9 chained keys from a cache
//! (`chained_hiera_keys_from_a_cache_are_linear`); 11 infinite `convert_to` results
//! (`corpus/lookup/trees/hiera5-convert`); 12 and 62.2 migrate's output
//! (`tests/it/migrate.rs` `outputs_that_are_not_new_are_refused_and_left_alone`); 13 migrate of
//! flow-style data (`corpus/migrate/trees/hierarchy/data/os/Debian.yaml`, and the check of what
//! migrate wrote); 62.1 thousands of environments (`thousands_of_environments_are_checked_linearly`);
//! 62.3 help and version to a full disk (`write_errors_on_standard_output_are_exit_2`); 62.6
//! FIFOs (`fifos_are_not_regular_files`) and invalid `lookup_options` in `pbc check`
//! (`corpus/check/trees/hiera5/data/common.yaml`); 62.5 a path too long
//! (`a_path_too_long_is_reported_and_the_rest_checked`); 5 comparing, hashing and
//! type-checking values that share their parts
//! (`values_that_share_their_parts_compare_in_their_depth`); 6 many globs over many files
//! (`many_globs_over_many_files_are_bounded`, `src/data/glob.rs`, and Ruby's order in
//! `corpus/lookup/trees/hiera5-globs`); 62.4 deep globs and links
//! (`globs_reach_their_depth_and_links_as_everywhere`); 62.7 an endless `--facts -`
//! (`an_endless_facts_stream_stops_at_the_limit_in_bounded_memory`), a killed `compile -o`
//! (`a_killed_compile_leaves_nothing_after_the_next`) and a global `datadir`
//! (`a_global_datadir_may_be_absolute_in_either_format`).

use crate::common;

use common::pbc;
use puppet_bindings::diag::{codes, Diagnostic};
use puppet_bindings::parse_file;
use puppet_bindings::span::FileId;
use std::process::Command;

/// Parses `src` through both of the library's entry points: `parse_file` (check, compile,
/// lookup) and `parse_file_statements` (`pbc parse`, which streams statements as they parse);
/// both must give the same findings, so that a limit holds on the path the binary takes.
fn parse(src: &str) -> (bool, Vec<Diagnostic>) {
    let mut streamed = 0usize;
    let streamed_diags =
        puppet_bindings::parse_file_statements(FileId(0), src, &mut |_| streamed += 1);
    let parsed = parse_file(FileId(0), src);
    assert_eq!(
        codes_of(&streamed_diags),
        codes_of(&parsed.diagnostics),
        "both parse paths find the same"
    );
    if let Some(p) = &parsed.program {
        // Serialising the AST, validating it and writing PN are the recursive passes that must
        // stay safe on whatever the parser accepts.
        let json = serde_json::to_string(p).expect("AST serialises");
        assert!(!json.is_empty());
        let _ = puppet_bindings::validate::check_program(p);
        assert!(puppet_bindings::pn::program_to_json(p).ends_with('\n'));
    }
    (parsed.program.is_some(), parsed.diagnostics)
}

fn codes_of(diags: &[Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code).collect()
}

/// The deepest trees the parser accepts, through every pass, on the 2 MiB test stack.
#[test]
fn deepest_accepted_trees_pass_every_stage() {
    let accepted = |src: String| {
        let (ok, diags) = parse(&src);
        assert!(ok, "{:?}", codes_of(&diags));
    };
    let mut depth = 0;
    while parse(&format!("$x = {}1", "!".repeat(depth + 1))).0 {
        depth += 1;
    }
    assert!(depth > 100, "unary nesting accepted only to {depth}");
    accepted(format!("$x = {}1", "!".repeat(depth)));
    accepted(format!("$x = {}1{}", "[".repeat(99), "]".repeat(99)));
    // Each `if` and each call with a lambda is two levels of the tree.
    accepted(format!("{}{}", "if $x { ".repeat(60), "} ".repeat(60)));
    accepted(format!(
        "{}{}",
        "$x.each |$y| { ".repeat(60),
        "} ".repeat(60)
    ));
}

#[test]
fn deep_brackets_give_one_nesting_error() {
    let n = 100_000;
    let src = format!("$x = {}1{}", "[".repeat(n), "]".repeat(n));
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn deep_parentheses_unclosed() {
    let src = "(".repeat(1_000_000);
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn deep_if_gives_one_nesting_error() {
    let n = 100_000;
    let src = format!("{}{}", "if $x { ".repeat(n), "} ".repeat(n));
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn long_elsif_chain_is_bounded() {
    let n = 100_000;
    let src = format!("if $a {{ 1 }}{} else {{ 3 }}", " elsif $b { 2 }".repeat(n));
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn long_unary_chain_is_bounded() {
    let src = format!("$x = {}1", "- ".repeat(1_000_000));
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn million_term_chain_parses_flat() {
    let mut src = String::from("$x = 1");
    src.push_str(&"+1".repeat(1_000_000));
    let (ok, diags) = parse(&src);
    assert!(ok, "{diags:?}");
    assert!(diags.is_empty());
}

/// The same chain, spaced as people write it, through the `pbc` binary itself (`pbc parse`
/// and `pbc check`): a chain extended by copying its list each time would not finish.
#[test]
fn million_term_chain_through_the_binary() {
    let dir = std::env::temp_dir().join(format!("pbc-chain-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("chain.pp");
    let mut src = String::from("$x = 1");
    src.push_str(&" + 1".repeat(1_000_000));
    src.push('\n');
    std::fs::write(&file, src).expect("written");
    let path = file.to_string_lossy().into_owned();
    let (status, stdout, stderr) = pbc(&["parse", "--format", "pn", &path]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.len() > 1_000_000);
    let (status, _, stderr) = pbc(&["check", &path]);
    assert_eq!(status, 0, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn million_term_chain_with_trailing_error() {
    let mut src = String::from("$x = 1");
    src.push_str(&"+1".repeat(1_000_000));
    src.push_str("+)");
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::SYNTAX_ERROR]);
}

#[test]
fn long_relationship_and_method_chains() {
    let mut src = String::from("a");
    src.push_str(&" -> b".repeat(200_000));
    let (ok, diags) = parse(&src);
    assert!(ok, "{diags:?}");
    let src = format!("$x = $y{}", ".f".repeat(100_000));
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn deep_string_interpolation_is_bounded() {
    let n = 50_000;
    let src = format!("$x = {}{}", "\"${".repeat(n), "}\"".repeat(n));
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(codes_of(&diags), vec![codes::NESTING_TOO_DEEP]);
}

#[test]
fn junk_gives_few_diagnostics() {
    let src = "&".repeat(1_000_000);
    let (ok, diags) = parse(&src);
    assert!(!ok);
    assert_eq!(diags.len(), 1);
    let src = "$a = = 1\n".repeat(10_000);
    let (_, diags) = parse(&src);
    // 50 shown plus one "N more" note.
    assert_eq!(diags.len(), 51);
    assert_eq!(diags.last().map(|d| d.code), Some(codes::TOO_MANY_ERRORS));
}

#[test]
fn crlf_parses_like_lf() {
    let lf = "class a {\n  $x = [1,\n    2]\n  notice(\"a\n b\")\n}\n";
    let crlf = lf.replace('\n', "\r\n");
    let a = parse_file(FileId(0), lf).program.expect("lf parses");
    let b = parse_file(FileId(0), &crlf).program.expect("crlf parses");
    assert_eq!(a.body.len(), b.body.len());
}

/// Validation stays linear on huge hashes and parameter lists (a quadratic duplicate search
/// would not finish this test in any reasonable time).
#[test]
fn validation_of_huge_hashes_and_parameter_lists() {
    let n = 200_000;
    let mut src = String::from("$h = {");
    for i in 0..n {
        src.push_str(&format!("k{i} => {i}, "));
    }
    src.push_str("k7 => 0 }\ndefine d(");
    for i in 0..n {
        src.push_str(&format!("$p{i}, "));
    }
    src.push_str("$p9) { }\n");
    let program = parse_file(FileId(0), &src).program.expect("parses");
    let diags = puppet_bindings::validate::check_program(&program);
    assert_eq!(
        codes_of(&diags),
        vec![codes::DUPLICATE_KEY, codes::DUPLICATE_PARAMETER]
    );
}

/// A site declaring `categories` and one bindings file, checked as a tree, rendered as text.
fn check_tree(categories: &str, bindings: &str) -> (puppet_bindings::CheckReport, String) {
    use puppet_bindings::tree::FileRole;
    let inputs = vec![
        puppet_bindings::SourceInput {
            name: "manifests/site.pp".into(),
            role: FileRole::Manifest,
            bytes: format!("site {{ categories {{ {categories} }} }}\n")
                .into_bytes()
                .into(),
        },
        puppet_bindings::SourceInput {
            name: "bindings/default.pp".into(),
            role: FileRole::Bindings {
                expected_name: "default".into(),
                module: None,
            },
            bytes: bindings.as_bytes().to_vec().into(),
        },
    ];
    let report = puppet_bindings::check_sources(inputs, &Default::default());
    let text = puppet_bindings::diag::render_text(&report.files, &report.diagnostics);
    (report, text)
}

/// Twenty nested `when c 'a' or c 'b'` (a million copies of one binding, were they made) are
/// one diagnostic, and nothing downstream makes the copies.
#[test]
fn nested_ors_are_bounded() {
    let categories: String = (0..20).map(|i| format!("c{i} => $::c{i}, ")).collect();
    let mut body = "bind 'x' to 1\n".to_string();
    for i in (0..20).rev() {
        body = format!("when c{i} 'a' or c{i} 'b' {{\n{body}}}\n");
    }
    let (report, _) = check_tree(&categories, &format!("bindings default {{\n{body}}}\n"));
    assert_eq!(
        codes_of(&report.diagnostics),
        vec![codes::TOO_MANY_ALTERNATIVES]
    );
}

/// One `when` with 8,000 `and`ed predicates of undeclared categories: every finding is kept,
/// and the text shows a few per code and counts the rest (each would print the whole line).
#[test]
fn thousands_of_findings_on_one_line_render_briefly() {
    let predicates: Vec<String> = (0..8000).map(|i| format!("cat{i} 'v'")).collect();
    let bindings = format!(
        "bindings default {{\n  when {} {{ bind 'x' to 1 }}\n}}\n",
        predicates.join(" and ")
    );
    let (report, text) = check_tree("dc => $::dc", &bindings);
    assert_eq!(report.diagnostics.len(), 8000);
    // Each finding shows the whole line: twenty of them, not eight thousand.
    assert!(text.len() < 25 * bindings.len(), "{} bytes", text.len());
    assert!(text.contains("... and 7980 more `UNKNOWN_CATEGORY` findings"));
}

/// A chain of 100,000 bindings that each look up the next: one clear EVAL_LIMIT at the
/// 129th, in linear time, and no stack overflow (it overflowed, and 40,000 took 26 s).
#[test]
fn long_lookup_chains_stop_at_a_limit() {
    let dir = std::env::temp_dir().join(format!("pbc-chain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bindings")).expect("temp dir");
    let n = 100_000;
    let mut text = String::from("bindings default {\n");
    for i in 0..n {
        text.push_str(&format!("  bind 'a{i}' to lookup('a{}')\n", i + 1));
    }
    text.push_str(&format!("  bind 'a{n}' to 1\n}}\n"));
    std::fs::write(dir.join("bindings/default.pp"), text).expect("bindings");
    std::fs::write(dir.join("facts.json"), "{\"fqdn\": \"n\"}").expect("facts");
    let out = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(["lookup", "--facts", "facts.json", "a0", "a127"])
        .current_dir(&dir)
        .output()
        .expect("pbc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[EVAL_LIMIT]"), "{stderr}");
    assert!(
        stderr.contains("the chain starts a0 -> a1 -> a2"),
        "{stderr}"
    );
    // Both keys fail (each line `null`); a chain within the limit is answered.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "null\nnull\n");
    let short = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(["lookup", "--facts", "facts.json", &format!("a{}", n - 100)])
        .current_dir(&dir)
        .output()
        .expect("pbc runs");
    assert_eq!(String::from_utf8_lossy(&short.stdout), "1\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Error recovery stays linear on a long line of repeated mistakes (each later error used to
/// rescan the line back to the first: 320,000 `$x.` took 15 s, 300,000 `'a'=>1,` 33 s).
#[test]
fn error_recovery_on_one_long_line_is_linear() {
    for src in [
        format!("$a = 1 {}", "', '".repeat(320_000)),
        "$x.".repeat(320_000),
        "'a'=>1,".repeat(300_000),
        // Every item of a bindings block is its own mistake (each is reported, up to the limit).
        format!("bindings b {{ {}}}", "bind 'k' => 1 ".repeat(50_000)),
        format!("bindings b {{\n{}}}", "  bind 'k' => 1\n".repeat(50_000)),
    ] {
        // (The first is a valid, if odd, sequence of statements.)
        let (_, diags) = parse(&src);
        assert!(diags.len() <= 51, "{}", diags.len());
    }
}

/// Building a collection one element per step is linear: a `reduce` whose lambda reads its memo
/// once extends it in place, and so does a multibind's combinator; `unique` and `uniq` hash.
/// Copied at each step, each of these would pass the 256 MiB value budget before 5,000 steps
/// (and took minutes at 90,000 before the budget existed).
#[test]
fn building_collections_step_by_step_is_linear() {
    use puppet_bindings::eval::{Evaluator, NoInjection, TopScope};
    let n = 50_000;
    let list: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let list = list.join(", ");
    let top = TopScope::default();
    for (start, lambda, then, expected) in [
        ("[]", "|$memo, $x| { $memo << $x }", "size", n),
        ("[]", "|$memo, $x| { $memo + [$x] }", "size", n),
        ("[]", "|$memo, $x| { $memo + [$x, $x] }", "size", 2 * n),
        ("[]", "|$memo, $x| { $memo + [$x, $x] }", "unique.size", n),
        (
            "[]",
            "|$memo, $x| { if $x < 0 { 0 } else { $memo << $x } }",
            "size",
            n,
        ),
        (
            "{}",
            "|$memo, $x| { $memo + { \"k${x}\" => $x } }",
            "size",
            n,
        ),
    ] {
        let src = format!("[{list}].reduce({start}) {lambda}.{then}");
        let program = parse_file(FileId(0), &src).program.expect("parses");
        let mut host = NoInjection::default();
        let mut ev = Evaluator::new(&top, &mut host);
        let size = ev.eval(&program.body[0]).map(|v| v.to_string());
        assert_eq!(
            size.map_err(|e| e.message),
            Ok(expected.to_string()),
            "{lambda}.{then}"
        );
    }

    // A combinator over 20,000 contributions, and `uniq` over as many, in a lookup.
    let contributions = 20_000;
    let mut text = String::from(
        "bindings default {\n  multibind Array[Data], 'all' as 'all' { combinator => |$memo, $x| { $memo + [$x] } }\n  multibind Array[Data], 'uniq' as 'uniq' { uniq => true }\n",
    );
    for i in 0..contributions {
        text.push_str(&format!(
            "  bind to {i} in 'all'\n  bind to {} in 'uniq'\n",
            i % 100
        ));
    }
    text.push_str("  bind 'sizes' to [lookup('all').size, lookup('uniq').size]\n}\n");
    let dir = std::env::temp_dir().join(format!("pbc-linear-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bindings")).expect("temp dir");
    std::fs::write(dir.join("bindings/default.pp"), text).expect("bindings");
    let out = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(["lookup", "sizes"])
        .current_dir(&dir)
        .output()
        .expect("pbc runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[{contributions},100]\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// Hostile input to the command line: files, facts, links and output (issue 17).

/// `compile -o` keeps the target's permissions, refuses a target that is not a regular file
/// (a FIFO would otherwise be replaced), and removes temporaries a killed run left behind.
#[test]
fn compile_output_is_safe() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("pbc-compile-safe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("model.json");
    std::fs::write(&out, "old").expect("old model");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    // A temporary of our pattern, as a killed run leaves it, two hours old.
    let stale = dir.join(".model.json.pbc-abc123.tmp");
    std::fs::write(&stale, "partial").expect("stale");
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .and_then(|f| f.set_modified(two_hours_ago))
        .expect("age");
    let out_arg = out.to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["compile", "-o", &out_arg, "corpus/compile/trees/sample"]);
    assert_eq!(code, 0, "{stderr}");
    let mode = std::fs::metadata(&out)
        .expect("written")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    // A new model is created as any new file is (0666 less the umask), not private like the
    // temporary it was written to.
    let fresh = dir.join("fresh.json");
    let fresh_arg = fresh.to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["compile", "-o", &fresh_arg, "corpus/compile/trees/sample"]);
    assert_eq!(code, 0, "{stderr}");
    let reference = dir.join("reference");
    std::fs::File::create(&reference).expect("a file made as any program makes one");
    let mode_of =
        |p: &std::path::Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
    assert_eq!(mode_of(&fresh), mode_of(&reference));
    std::fs::remove_file(&fresh).expect("removed");
    std::fs::remove_file(&reference).expect("removed");
    assert!(!stale.exists(), "the stale temporary is removed");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["model.json"]);

    // A FIFO (or a device, or a link) is not replaced.
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let fifo_arg = fifo.to_string_lossy().into_owned();
        let (code, _, stderr) = pbc(&["compile", "-o", &fifo_arg, "corpus/compile/trees/sample"]);
        assert_eq!(code, 2);
        assert!(stderr.contains("not a regular file"), "{stderr}");
        let kind = std::fs::symlink_metadata(&fifo)
            .expect("still there")
            .file_type();
        assert!(!kind.is_file());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Output that cannot be written is exit 2, never a success with the output lost.
#[test]
fn write_errors_on_standard_output_are_exit_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(full.try_clone().expect("dup"))
            .output()
            .expect("pbc runs")
    };
    for args in [
        &["schema"][..],
        // Issue 62 item 3: help and version are output too.
        &["--help"][..],
        &["--version"][..],
        &["help", "lookup"][..],
        &["lookup", "--help"][..],
        &["parse", "--format", "pn", "corpus/pn"][..],
        &["check", "--error-format", "json", "examples/site"][..],
        &[
            "lookup",
            "--facts",
            "corpus/lookup/trees/example/facts",
            "--node",
            "web01.ams.example.com",
            "--all",
            "corpus/lookup/trees/example",
        ][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot write to standard output"),
            "{args:?}"
        );
    }
}

/// Facts and ENC output are read within bounds: nesting, YAML aliases, file size, file kind,
/// and a node name that tries to be a path (each failed before: a stack overflow, gigabytes,
/// an endless read, a file outside the factsets directory).
#[test]
fn hostile_facts_are_refused() {
    let dir = std::env::temp_dir().join(format!("pbc-facts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let deep = dir.join("deep.yaml");
    std::fs::write(&deep, format!("deep:\n{}x\n", "- ".repeat(400_000))).expect("deep");
    let mut bomb = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let mut previous = 'a';
    for c in "bcdefghij".chars() {
        bomb.push_str(&format!(
            "{c}: &{c} [{}]\n",
            vec![format!("*{previous}"); 9].join(", ")
        ));
        previous = c;
    }
    let bomb_file = dir.join("bomb.yaml");
    std::fs::write(&bomb_file, bomb).expect("bomb");
    let big = dir.join("big.json");
    std::fs::write(&big, format!("{{\"x\": \"{}\"}}", "a".repeat(4096))).expect("big");
    let tree = "corpus/lookup/trees/example";
    // What is in the file is an error found (1); a file that cannot be read is an I/O problem (2).
    let cases: Vec<(Vec<String>, &str, i32)> = vec![
        (
            vec!["--facts".into(), deep.display().to_string()],
            "nests more than 128 levels",
            1,
        ),
        (
            vec!["--facts".into(), bomb_file.display().to_string()],
            "YAML aliases",
            1,
        ),
        (
            vec!["--facts".into(), "/dev/zero".into()],
            "not a regular file",
            2,
        ),
        (
            vec![
                "--max-file-size".into(),
                "1000".into(),
                "--facts".into(),
                big.display().to_string(),
            ],
            "more than the limit of 1000",
            2,
        ),
        (
            vec![
                "--facts".into(),
                format!("{tree}/facts"),
                "--node".into(),
                "../facts/web01.ams.example.com".into(),
            ],
            "is not a node's name",
            1,
        ),
    ];
    for (args, says, status) in cases {
        let mut all: Vec<&str> = vec!["lookup"];
        all.extend(args.iter().map(String::as_str));
        all.extend(["ntp::servers", tree]);
        let (code, _, stderr) = pbc(&all);
        assert_eq!(code, status, "{all:?}: {stderr}");
        assert!(stderr.contains(says), "{all:?}: {stderr}");
    }
    let (code, _, stderr) = pbc(&["check", "/dev/zero"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not a regular file"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An environment's `manifest` that is not Puppet code (`/proc/self/environ`) is an error at
/// the attribute, and is never read (its lines would be shown in diagnostics).
#[test]
fn a_manifest_that_is_not_puppet_is_refused() {
    let dir = common::write_tree(
        "cli",
        "manifest_not_puppet",
        &[],
        &[
            (
                "environments.pp",
                "site {\n  environment { 'production': manifest => '/proc/self/environ' }\n}\n",
            ),
            ("facts.json", "{\"fqdn\": \"n\"}"),
        ],
    );
    let tree = dir.to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["check", &tree]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[ENVIRONMENT_PATH_TYPE]"), "{stderr}");
    assert!(
        stderr.contains("neither a `.pp` file nor a directory"),
        "{stderr}"
    );
    assert!(!stderr.contains("PATH="), "{stderr}");
    let facts = dir.join("facts.json").to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["lookup", "--facts", &facts, "x", &tree]);
    assert_eq!(code, 1);
    assert!(stderr.contains("ENVIRONMENT_PATH_TYPE"), "{stderr}");
}

/// A tree file pbc refuses to read (here, larger than `--max-file-size`) stops `check` and
/// `compile` with exit 2, naming the first such file in the tree's order, however the reads
/// were shared out among the cores.
#[test]
fn an_unreadable_tree_file_is_an_io_error_naming_the_first() {
    let big = format!(
        "bindings {{name}}::default {{\n  bind 'x' to '{}'\n}}\n",
        "a".repeat(2000)
    );
    let mut files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("modules/m{i:02}/bindings/default.pp"),
                format!("bindings m{i:02}::default {{\n  bind 'm{i:02}::x' to 1\n}}\n"),
            )
        })
        .collect();
    for module in ["m07", "m31"] {
        files.push((
            format!("modules/{module}/bindings/big.pp"),
            big.replace("{name}", module),
        ));
    }
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let tree = common::write_tree("cli", "unreadable", &[], &borrowed);
    let t = tree.to_string_lossy().into_owned();
    for command in ["check", "compile"] {
        let (code, stdout, stderr) = pbc(&["--max-file-size", "1000", command, &t]);
        assert_eq!(code, 2, "{command}: {stderr}");
        assert!(stdout.is_empty(), "{command}: {stdout}");
        assert!(
            stderr.contains("m07/bindings/big.pp"),
            "{command}: {stderr}"
        );
        assert!(
            !stderr.contains("m31/bindings/big.pp"),
            "{command}: {stderr}"
        );
        assert!(
            stderr.contains("more than the limit of 1000"),
            "{command}: {stderr}"
        );
    }
}

/// One policy for links in every subcommand: a link that leads out of the tree is not read
/// (`check` and `lookup` both say so), `--follow-symlinks` follows it, and a link back up the
/// tree is no endless walk. (`lookup` used to read a module `check` skipped.)
#[test]
fn links_out_of_the_tree_are_not_followed() {
    let base = common::write_tree(
        "cli",
        "links",
        &[],
        &[
            (
                "outside/evil/bindings/default.pp",
                "bindings evil::default {\n  bind 'x' to 'evil'\n}\n",
            ),
            (
                "outside/inner/default.pp",
                "bindings good::default {\n  bind 'y' to 'inner'\n}\n",
            ),
            ("tree/facts.json", "{\"fqdn\": \"n\"}"),
        ],
    );
    let (tree, outside) = (base.join("tree"), base.join("outside"));
    std::fs::create_dir_all(tree.join("modules/good")).expect("modules");
    std::os::unix::fs::symlink(outside.join("evil"), tree.join("modules/evil")).expect("link");
    std::os::unix::fs::symlink(&tree, tree.join("modules/loop")).expect("loop");
    // Inside a module, where the walk of the modules (on every core) meets it.
    std::os::unix::fs::symlink(outside.join("inner"), tree.join("modules/good/bindings"))
        .expect("inner link");
    let t = tree.to_string_lossy().into_owned();
    let facts = tree.join("facts.json").to_string_lossy().into_owned();

    let (code, _, stderr) = pbc(&["check", &t]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning[SYMLINK_NOT_FOLLOWED]"), "{stderr}");
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "x", &t]);
    assert_eq!((code, stdout.as_str()), (1, "null\n"), "{stderr}");
    assert!(stderr.contains("SYMLINK_NOT_FOLLOWED"), "{stderr}");
    assert!(stderr.contains("KEY_NOT_FOUND"), "{stderr}");
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "y", &t]);
    assert_eq!((code, stdout.as_str()), (1, "null\n"), "{stderr}");
    assert!(
        stderr.contains("modules/good/bindings` is a link"),
        "{stderr}"
    );
    let (code, stdout, stderr) = pbc(&["--follow-symlinks", "lookup", "--facts", &facts, "x", &t]);
    assert_eq!((code, stdout.as_str()), (0, "\"evil\"\n"), "{stderr}");
    let (code, stdout, stderr) = pbc(&["--follow-symlinks", "lookup", "--facts", &facts, "y", &t]);
    assert_eq!((code, stdout.as_str()), (0, "\"inner\"\n"), "{stderr}");
}

/// `--confine`: a path that leads out of the tree is an error naming the attribute; without
/// it, ARM-8's paths outside the tree (`/etc/puppet/...`) are read.
#[test]
fn confine_keeps_reads_inside_the_tree() {
    let base = common::write_tree(
        "cli",
        "confine",
        &[],
        &[
            (
                "shared/ntp/bindings/default.pp",
                "bindings ntp::default {\n  bind 'ntp::servers' to ['a']\n}\n",
            ),
            (
                "tree/environments.pp",
                "site {\n  environment { 'production': modulepath => '../shared' }\n}\n",
            ),
            ("tree/facts.json", "{\"fqdn\": \"n\"}"),
        ],
    );
    let tree = base.join("tree");
    let t = tree.to_string_lossy().into_owned();
    let facts = tree.join("facts.json").to_string_lossy().into_owned();
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "ntp::servers", &t]);
    assert_eq!((code, stdout.as_str()), (0, "[\"a\"]\n"), "{stderr}");
    for args in [
        vec!["--confine", "check", &t],
        vec!["--confine", "lookup", "--facts", &facts, "ntp::servers", &t],
    ] {
        let (code, _, stderr) = pbc(&args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.contains("error[PATH_OUTSIDE_TREE]"), "{stderr}");
        assert!(
            stderr.contains("the `modulepath` of the environment `production`"),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// 60,000 categories with one listed twice: one finding, found through a map (a pairwise
/// search took 7.5 s).
#[test]
fn huge_category_lists_are_checked_linearly() {
    let mut categories: String = (0..60_000).map(|i| format!("c{i} => $::c{i}, ")).collect();
    categories.push_str("c7 => $::again");
    let (report, _) = check_tree(&categories, "bindings default {\n  bind 'x' to 1\n}\n");
    assert_eq!(
        codes_of(&report.diagnostics),
        vec![codes::DUPLICATE_CATEGORY]
    );
}

/// 10,000 dynamic environments, each with its own bindings: each environment's files are
/// found by name, not by scanning every file of the site (quadratic: 8 s).
#[test]
fn thousands_of_environments_are_checked_linearly() {
    let root = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("many-environments");
    let _ = std::fs::remove_dir_all(&root);
    // Issue 62 item 1: each environment laid out on its own was a search of every layout before
    // it (20,000 took 24 s in a release build, 40,000 155 s); 25,000 here.
    let n = 25_000;
    for i in 0..n {
        let dir = root.join(format!("environments/e{i}/bindings"));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(
            dir.join("default.pp"),
            format!("bindings default {{\n  bind 'x' to {i}\n}}\n"),
        )
        .expect("bindings");
    }
    std::fs::write(
        root.join("environments.pp"),
        "site {\n  dynamic_environments { \"${confdir}/environments\": }\n}\n",
    )
    .expect("environments.pp");
    let (code, stdout, stderr) = pbc(&["check", &root.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!("{} files checked: 0 errors, 0 warnings", n + 1),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// A model nests two levels per operator of an embedded chain: a 40,000-operator chain is read
/// back and answers as on the tree; a file nested deeper than the limit is one INVALID_MODEL,
/// counted before anything is parsed (no stack overflow, whatever the depth).
#[test]
fn deep_models_are_read_or_refused() {
    let chain = vec!["1"; 40_001].join(" + ");
    let dir = common::write_tree(
        "limits",
        "deep_model",
        &[],
        &[(
            "bindings/default.pp",
            &format!("bindings default {{\n  bind 'sum' to {chain}\n}}\n"),
        )],
    );
    let tree = dir.to_string_lossy().into_owned();
    let model = dir.join("model.json").to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["compile", "--compact", "-o", &model, &tree]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = pbc(&["lookup", "--model", &model, "sum"]);
    assert_eq!((code, stdout.as_str()), (0, "40001\n"), "{stderr}");

    let deep = dir.join("deep.json");
    let depth = puppet_bindings::lower::read::MAX_READ_DEPTH * 10;
    std::fs::write(&deep, format!("{}{}", "[".repeat(depth), "]".repeat(depth))).expect("deep");
    let deep = deep.to_string_lossy().into_owned();
    let (code, stdout, stderr) = pbc(&["lookup", "--model", &deep, "sum"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("error[INVALID_MODEL]")
            && stderr.contains("nests more than 100000 levels deep (at line 1, column 100001)"),
        "{stderr}"
    );
}

/// Issue 56 item 1: a diagnostic about no place in a file (here SYMLINK_NOT_FOLLOWED, for a
/// data file that is a link out of the tree) renders in every format, with the same exit.
#[test]
fn diagnostics_without_a_place_render_in_every_format() {
    let base = common::write_tree(
        "cli",
        "placeless",
        &[],
        &[
            ("outside/x.yaml", "a: 1\n"),
            (
                "tree/hiera.yaml",
                "version: 5\nhierarchy:\n  - name: c\n    path: common.yaml\n",
            ),
        ],
    );
    let tree = base.join("tree");
    std::fs::create_dir_all(tree.join("data")).expect("data");
    std::os::unix::fs::symlink(base.join("outside/x.yaml"), tree.join("data/common.yaml"))
        .expect("link");
    let t = tree.to_string_lossy().into_owned();
    let (human, _, stderr) = pbc(&["check", &t]);
    assert!(stderr.contains("SYMLINK_NOT_FOLLOWED"), "{stderr}");
    let (code, stdout, stderr) = pbc(&["check", "--error-format", "json", &t]);
    assert_eq!(code, human, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let link = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == codes::SYMLINK_NOT_FOLLOWED)
        .expect("the link's diagnostic");
    assert!(link["file"].is_null(), "{link}");
    let (code, stdout, stderr) = pbc(&["check", "--error-format", "sarif", &t]);
    assert_eq!(code, human, "{stderr}");
    let sarif: serde_json::Value = serde_json::from_str(&stdout).expect("SARIF");
    assert!(sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .any(|r| r["ruleId"] == codes::SYMLINK_NOT_FOLLOWED));
}

/// Issue 56 items 2 and 10: `pbc lookup --model CACHE` refuses a damaged cache (INVALID_MODEL,
/// exit 2 or 1, no answer on stdout) whatever bit of it changed, and a header nested a million
/// deep, with the right checksum, is refused by its count, never parsed into the stack.
#[test]
fn damaged_and_deep_caches_are_refused() {
    let base = common::write_tree(
        "cli",
        "cache-damage",
        &[],
        &[
            (
                "tree/manifests/site.pp",
                "site {\n  categories { node => $::fqdn }\n}\n",
            ),
            (
                "tree/bindings/default.pp",
                "bindings default {\n  bind 'site::a' to 'right'\n  when node 'n' { bind 'site::b' to 'node' }\n}\n",
            ),
            ("facts.json", "{\"fqdn\": \"n\"}"),
        ],
    );
    let cache = base.join("model.pbcm").to_string_lossy().into_owned();
    let facts = base.join("facts.json").to_string_lossy().into_owned();
    let tree = base.join("tree").to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["compile", "--cache", "-o", &cache, &tree]);
    assert_eq!(code, 0, "{stderr}");
    let lookup = |model: &str| {
        pbc(&[
            "lookup", "--model", model, "--facts", &facts, "site::a", "site::b",
        ])
    };
    let (code, stdout, stderr) = lookup(&cache);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "\"right\"\n\"node\"\n"),
        "{stderr}"
    );
    let bytes = std::fs::read(&cache).expect("the cache");
    let damaged = base.join("damaged.pbcm");
    let damaged_name = damaged.to_string_lossy().into_owned();
    // Every byte after the magic line and the version, one bit each.
    for at in (20..bytes.len()).step_by(7) {
        let mut copy = bytes.clone();
        copy[at] ^= 1 << (at % 8);
        std::fs::write(&damaged, &copy).expect("written");
        let (code, stdout, stderr) = lookup(&damaged_name);
        assert_ne!(code, 0, "byte {at}: {stdout}");
        assert!(
            stdout.trim().lines().all(|l| l == "null"),
            "byte {at}: {stdout}"
        );
        assert!(stderr.contains("INVALID_MODEL"), "byte {at}: {stderr}");
    }
    let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let mut body = (deep.len() as u64).to_le_bytes().to_vec();
    body.extend_from_slice(deep.as_bytes());
    body.extend_from_slice(&[0u8; 40]);
    std::fs::write(&damaged, puppet_bindings::lower::cache::sealed(&body)).expect("written");
    let (code, _, stderr) = lookup(&damaged_name);
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains("INVALID_MODEL") && stderr.contains("levels deep"),
        "{stderr}"
    );
}

/// Issue 56 item 9: `pbc lookup --model CACHE` of a key whose Hiera value interpolates the next
/// key, and so on 100,000 times: the closure of what the lookup needs indexes the level's data
/// by key once (it scanned every datum per key: 80,000 keys took 35 s, and this would take
/// minutes). The chain itself then stops at the lookup depth limit.
#[test]
fn chained_hiera_keys_from_a_cache_are_linear() {
    let n = 100_000;
    let mut data = String::with_capacity(n * 32);
    for i in 0..n {
        data.push_str(&format!("k{i}: \"%{{lookup('k{}')}}\"\n", i + 1));
    }
    data.push_str(&format!("k{n}: end\n"));
    let base = common::write_tree(
        "cli",
        "cache-chain",
        &[],
        &[
            (
                "tree/hiera.yaml",
                "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
            ),
            ("tree/data/common.yaml", &data),
            ("facts.json", "{\"fqdn\": \"n\"}"),
        ],
    );
    let cache = base.join("model.pbcm").to_string_lossy().into_owned();
    let facts = base.join("facts.json").to_string_lossy().into_owned();
    let tree = base.join("tree").to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["compile", "--cache", "-o", &cache, &tree]);
    assert_eq!(code, 0, "{stderr}");
    let (_, stdout, stderr) = pbc(&[
        "lookup",
        "--model",
        &cache,
        "--facts",
        &facts,
        &format!("k{}", n - 3),
    ]);
    assert_eq!(stdout, "\"end\"\n", "{stderr}");
    let (code, _, stderr) = pbc(&["lookup", "--model", &cache, "--facts", &facts, "k0"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("[EVAL_LIMIT]"), "{stderr}");
}

/// Issue 56 item 8: `unique` and `deep` merges of two arrays of 150,000 values each, half of
/// them shared, keep the first of each in order, hashed (a search of what came before took
/// 22 s for 40,000; this size would take minutes).
#[test]
fn merging_long_arrays_is_linear() {
    let n = 150_000;
    let list = |from: usize| {
        let mut text = String::with_capacity(n * 10);
        for i in from..from + n {
            text.push_str(&format!("  - v{i}\n"));
        }
        text
    };
    let first = format!(
        "lookup_options:\n  big:\n    merge: unique\n  deep:\n    merge: deep\nbig:\n{0}deep:\n  list:\n{0}",
        list(0).replace("  - ", "    - ")
    );
    let second = format!(
        "big:\n{0}deep:\n  list:\n{0}",
        list(n / 2).replace("  - ", "    - ")
    );
    let (facts, tree) = tree_with_facts(
        "long_merges",
        &[
            (
                "hiera.yaml",
                "version: 5\nhierarchy:\n  - name: first\n    path: first.yaml\n  - name: second\n    path: second.yaml\n",
            ),
            ("data/first.yaml", &first),
            ("data/second.yaml", &second),
        ],
    );
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "big", "deep", &tree]);
    assert_eq!(code, 0, "{stderr}");
    let mut lines = stdout.lines();
    let big: Vec<String> = serde_json::from_str(lines.next().expect("big")).expect("a list");
    assert_eq!(big.len(), n + n / 2);
    assert_eq!(
        (big[0].clone(), big[n].clone()),
        ("v0".to_string(), format!("v{n}"))
    );
    let deep: serde_json::Value = serde_json::from_str(lines.next().expect("deep")).expect("JSON");
    assert_eq!(deep["list"].as_array().map(Vec::len), Some(n + n / 2));
}

/// Issue 56 item 7: a data file on one line (minified JSON, a YAML flow mapping) of 150,000
/// keys: each key's column is found from character marks, not counted from the line's start
/// (80,000 keys took 6.8 s; this size would take minutes). Each key still has its column.
#[test]
fn one_line_data_files_are_read_linearly() {
    let n = 150_000;
    let json = format!(
        "{{{}}}",
        (0..n)
            .map(|i| format!("\"key{i}\":\"value{i}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let yaml = format!(
        "{{{}}}\n",
        (0..n)
            .map(|i| format!("other{i}: é{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (facts, tree) = tree_with_facts(
        "one_line_data",
        &[
            (
                "hiera.yaml",
                "version: 5\nhierarchy:\n  - name: json\n    data_hash: json_data\n    path: common.json\n  - name: yaml\n    path: common.yaml\n",
            ),
            ("data/common.json", &json),
            ("data/common.yaml", &yaml),
        ],
    );
    let last = format!("key{}", n - 1);
    let other = format!("other{}", n - 1);
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, &last, &other, &tree]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, format!("\"value{}\"\n\"é{}\"\n", n - 1, n - 1));
    let (_, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "--explain", &other, &tree]);
    // The key's column in characters (every `é` before it is one).
    let column = yaml
        .find(&format!("{other}:"))
        .map(|at| yaml[..at].chars().count() + 1);
    assert!(
        stdout.contains(&format!("common.yaml:1:{}", column.unwrap_or(0))),
        "{stdout}{stderr}"
    );
}

/// Issue 56 item 3: a value that shares its parts (`[$m, $m]` forty times: 2^40 leaves in a
/// few kilobytes) written out whole by `flatten`, `join`, `sprintf`, interpolation, and a
/// `regsubst` that multiplies its input, each stop at the lookup's budget (EVAL_LIMIT) before
/// they allocate it (they aborted the process, or grew until the OOM killer).
#[test]
fn values_that_share_their_parts_are_not_written_out_past_the_budget() {
    // Built inside each expression: a binding's own value is held to 10,000,000 elements.
    let shared = shared_parts_value();
    let bindings = format!(
        "bindings default {{\n\
         \x20 bind 'flat' to {shared}.with |$v| {{ $v.flatten.length }}\n\
         \x20 bind 'joined' to {shared}.with |$v| {{ $v.join(',').length }}\n\
         \x20 bind 'formatted' to {shared}.with |$v| {{ sprintf('%s', $v).length }}\n\
         \x20 bind 'interpolated' to {shared}.with |$v| {{ \"${{v}}\".length }}\n\
         \x20 bind 'long' to [{}].reduce('x') |$m, $x| {{ \"${{m}}${{m}}\" }}\n\
         \x20 bind 'multiplied' to regsubst(lookup('long'), '', lookup('long'), 'G').length\n\
         }}\n",
        (1..=17)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (facts, tree) = tree_with_facts("shared_values", &[("bindings/default.pp", &bindings)]);
    for key in ["flat", "joined", "formatted", "interpolated", "multiplied"] {
        let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, key, &tree]);
        assert_eq!((code, stdout.as_str()), (1, "null\n"), "{key}: {stderr}");
        assert!(stderr.contains("error[EVAL_LIMIT]"), "{key}: {stderr}");
    }
    // What shares its parts is fine as long as nobody writes it out.
    let (code, _, stderr) = pbc(&["lookup", "--facts", &facts, "long", &tree]);
    assert_eq!(code, 0, "{stderr}");
}

/// Issue 56 item 4: Hiera interpolation is held to the lookup's budget: each of twenty keys
/// interpolating the next four times (4^20 bytes from a 2 KB data file) is EVAL_LIMIT, where
/// the process aborted on allocation.
#[test]
fn hiera_interpolation_that_multiplies_meets_the_budget() {
    let mut data = String::new();
    for i in 0..20 {
        let next = format!("%{{lookup('k{}')}}", i + 1);
        data.push_str(&format!("k{i}: \"{0}{0}{0}{0}\"\n", next));
    }
    data.push_str("k20: \"0123456789\"\n");
    let (facts, tree) = tree_with_facts(
        "multiplying_interpolation",
        &[
            (
                "hiera.yaml",
                "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
            ),
            ("data/common.yaml", &data),
        ],
    );
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "k0", "k17", &tree]);
    assert_eq!(code, 1, "{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("null"));
    assert_eq!(lines.next().map(str::len), Some(2 + 10 * 64));
    assert!(stderr.contains("error[EVAL_LIMIT]"), "{stderr}");
}

/// Issue 62 item 6: a data file, a cache or `--hiera-config` that is a FIFO is said to be no
/// regular file (opening one waited for a writer forever; skipped, it was silent, and
/// `--hiera-config` said "cannot find"). The guard kills a run that waits.
#[test]
fn fifos_are_not_regular_files() {
    let base = common::write_tree(
        "limits",
        "fifos",
        &[],
        &[
            (
                "tree/hiera.yaml",
                "version: 5\nhierarchy:\n  - name: c\n    path: common.yaml\n",
            ),
            ("facts.json", "{\"fqdn\": \"n\"}"),
        ],
    );
    std::fs::create_dir_all(base.join("tree/data")).expect("data");
    for fifo in ["tree/data/common.yaml", "config.yaml", "model.pbcm"] {
        let made = Command::new("mkfifo")
            .arg(base.join(fifo))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
    }
    let name = |p: &str| base.join(p).to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("pbc runs");
        for _ in 0..600 {
            if child.try_wait().expect("waits").is_some() {
                let out = child.wait_with_output().expect("output");
                return (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = child.kill();
        panic!("{args:?} waits on a FIFO");
    };
    let (code, stderr) = run(&["check", &name("tree")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("it is not a regular file"), "{stderr}");
    let (code, stderr) = run(&[
        "--hiera-config",
        &name("config.yaml"),
        "check",
        &name("tree"),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is not a regular file"), "{stderr}");
    let (code, stderr) = run(&[
        "lookup",
        "--model",
        &name("model.pbcm"),
        "--facts",
        &name("facts.json"),
        "x",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

/// Issue 62 item 5: a directory of the tree whose path is longer than the system allows is
/// PATH_TOO_LONG, naming the directory it is in, and the rest of the tree is checked (the
/// whole command stopped with "File name too long (os error 36)", naming nothing).
#[test]
fn a_path_too_long_is_reported_and_the_rest_checked() {
    let base = common::write_tree(
        "limits",
        "path_too_long",
        &[],
        &[
            (
                "tree/bindings/default.pp",
                "bindings default {\n  bind 'x' to 1\n}\n",
            ),
            ("tree/manifests/long/keep", ""),
        ],
    );
    let name = "d".repeat(250);
    // The system refuses a path this long whole: eighteen one-letter directories are made,
    // then renamed from the deepest up, each rename's own path short.
    let long = base.join("tree/manifests/long");
    let short = |depth: usize| (0..depth).fold(long.clone(), |p, _| p.join("a"));
    std::fs::create_dir_all(short(18)).expect("short directories");
    std::fs::write(short(18).join("x.pp"), "notice(1)\n").expect("a manifest");
    for depth in (1..=18).rev() {
        let renamed = short(depth - 1).join(&name);
        if std::fs::rename(short(depth), renamed).is_err() {
            return; // a file system with other limits
        }
    }
    let tree = base.join("tree").to_string_lossy().into_owned();
    let (code, _, stderr) = pbc(&["check", &tree]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[PATH_TOO_LONG]"), "{stderr}");
    assert!(stderr.contains("1 file checked: 1 error"), "{stderr}");
    // The byte count depends on where the test runs, and the scratch directory's path on the
    // target directory (`.ci/run` builds the release tests in `target/shipped`).
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let tmp = tmp.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(tmp);
    let shown = stderr
        .replace(&name, "D")
        .replace(&tmp.display().to_string(), "target/tmp");
    let shown = match (shown.find("allows ("), shown.find(" bytes)")) {
        (Some(from), Some(to)) if from < to => {
            format!("{}allows (N{}", &shown[..from], &shown[to..])
        }
        _ => shown,
    };
    common::snapshot_settings().bind(|| insta::assert_snapshot!("limits@path_too_long", shown));
}

/// Issue 56 item 5: comparing, hashing and type-checking a value that shares its parts (`==`,
/// `in`, `unique`, a hash key, `case`, `=~ Data`) look at each shared part once (they walked
/// all 2^40 leaves: hours).
#[test]
fn values_that_share_their_parts_compare_in_their_depth() {
    // Built inside each expression: a binding's own value is held to 10,000,000 elements.
    let shared = shared_parts_value();
    let bindings = format!(
        "bindings default {{\n\
         \x20 bind 'same' to {shared}.with |$v| {{ $v == $v and !($v != $v) }}\n\
         \x20 bind 'inside' to {shared}.with |$v| {{ $v in [1, $v] }}\n\
         \x20 bind 'once' to {shared}.with |$v| {{ [$v, $v].unique.length }}\n\
         \x20 bind 'keyed' to {shared}.with |$v| {{ {{ $v => 'found' }}[$v] }}\n\
         \x20 bind 'cased' to {shared}.with |$v| {{ case $v {{ [1]: {{ 'no' }} $v: {{ 'yes' }} default: {{ 'no' }} }} }}\n\
         \x20 bind 'data' to {shared}.with |$v| {{ $v =~ Data }}\n\
         }}\n"
    );
    let (facts, tree) = tree_with_facts("shared_compare", &[("bindings/default.pp", &bindings)]);
    let (code, stdout, stderr) = pbc(&[
        "lookup", "--facts", &facts, "same", "inside", "once", "keyed", "data", &tree,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "true\ntrue\n1\n\"found\"\ntrue\n");
    // A `case` option is matched part by part (a regex matches a string, not itself): each
    // pair of arrays is a step of the lookup's budget.
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "cased", &tree]);
    assert_eq!((code, stdout.as_str()), (1, "null\n"), "{stderr}");
    assert!(stderr.contains("error[EVAL_LIMIT]"), "{stderr}");
}

/// A tree in `limits/NAME` of `files`, beside facts for the node `n`: the facts file and the
/// tree, as the command line names them.
fn tree_with_facts(name: &str, files: &[(&str, &str)]) -> (String, String) {
    let mut all = files.to_vec();
    all.push(("facts.json", "{\"fqdn\": \"n\"}"));
    let base = common::write_tree("limits", name, &[], &all);
    // The tree is the directory; facts.json in it is a file no tree reads.
    (
        base.join("facts.json").to_string_lossy().into_owned(),
        base.to_string_lossy().into_owned(),
    )
}

/// Item 6: `globs` with thousands of patterns over thousands of files. Patterns past the limit
/// (2,000 copies of `**/*.yaml`; 400 globs of 256 alternatives) are refused when `hiera.yaml`
/// is read, without a walk; copies within it walk the files once; files found past the limit
/// of matches make the level unsearchable for the request. Each such level fails the lookups
/// that reach it, and the tree is still answered from the others (walking the 5,000 files
/// 2,000 times, and comparing each file found with every file before it, would not finish).
#[test]
fn many_globs_over_many_files_are_bounded() {
    let copies = vec!["'**/*.yaml'"; 2_000].join(", ");
    let alternatives: Vec<String> = (0..256).map(|i| format!("a{i}")).collect();
    let braces = vec![format!("'{{{}}}/*.yaml'", alternatives.join(",")); 400].join(", ");
    let many = vec!["'**/*.yaml'"; 30].join(", ");
    let config = format!(
        "version: 5\nhierarchy:\n  - {{name: copies, globs: [{copies}]}}\n  - {{name: braces, globs: [{braces}]}}\n  - {{name: many, globs: [{many}]}}\n  - {{name: all, glob: '**/*.yaml'}}\n"
    );
    let data: Vec<(String, String)> = (0..5_000)
        .map(|i| {
            (
                format!("data/d{:02}/f{i:04}.yaml", i % 50),
                format!("k: {i}\nk{i}: {i}\n"),
            )
        })
        .collect();
    let mut files: Vec<(&str, &str)> = vec![("hiera.yaml", config.as_str())];
    files.extend(data.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let (facts, tree) = tree_with_facts("many_globs", &files);

    let (code, _, stderr) = pbc(&["check", &tree]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.matches("warning[HIERA_GLOB_LIMIT]").count(),
        2,
        "{stderr}"
    );
    assert!(
        stderr.contains("the level `copies`: its globs expand to 257 or more patterns"),
        "{stderr}"
    );
    assert!(stderr.contains("the level `braces`"), "{stderr}");
    assert!(stderr.contains("5001 files checked"), "{stderr}");

    let lookup = |empty: &[&str]| {
        let mut args = vec!["lookup", "--facts", &facts];
        for level in empty {
            args.extend(["--empty-level", level]);
        }
        args.extend(["k", "k4999", &tree]);
        pbc(&args)
    };
    let (code, stdout, stderr) = lookup(&[]);
    assert_eq!((code, stdout.as_str()), (1, "null\nnull\n"), "{stderr}");
    assert!(stderr.contains("the Hiera level `copies`"), "{stderr}");
    let (code, stdout, stderr) = lookup(&["copies", "braces"]);
    assert_eq!((code, stdout.as_str()), (1, "null\nnull\n"), "{stderr}");
    assert!(
        stderr.contains("its globs find more than pbc's limit of 100000 files"),
        "{stderr}"
    );
    // The first file Ruby's walk finds: `d00` is read first, and `f0000` in it.
    let (code, stdout, stderr) = lookup(&["copies", "braces", "many"]);
    assert_eq!((code, stdout.as_str()), (0, "0\n4999\n"), "{stderr}");
}

/// Item 62.4: a glob looks 64 directories down (Ruby has no limit): a data file 64 down is
/// found (the walk used to stop at 16 without a word), counted from the data directory both
/// when the tree is read and when a request is answered; a tree deeper than the limit makes
/// the level one pbc cannot search, said by `check` and by each lookup that reaches it. A
/// data file that is a link inside the tree is globbed like any other (Ruby lists links), and
/// one leading out of the tree is followed only with `--follow-symlinks`.
#[test]
fn globs_reach_their_depth_and_links_as_everywhere() {
    let config = "version: 5\nhierarchy:\n  - {name: all, glob: '**/*.yaml'}\n";
    let deepest = format!("data/{}deep.yaml", "d/".repeat(64));
    let (facts, tree) = tree_with_facts(
        "glob_depth",
        &[("hiera.yaml", config), (deepest.as_str(), "deep: 64\n")],
    );
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "deep", &tree]);
    assert_eq!((code, stdout.as_str()), (0, "64\n"), "{stderr}");

    let seventy = format!("data/{}deep.yaml", "d/".repeat(70));
    let (facts, tree) = tree_with_facts(
        "glob_too_deep",
        &[
            ("hiera.yaml", config),
            (seventy.as_str(), "deep: 70\n"),
            ("data/common.yaml", "shallow: 1\n"),
        ],
    );
    let (code, _, stderr) = pbc(&["check", &tree]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning[HIERA_GLOB_LIMIT]"), "{stderr}");
    assert!(stderr.contains("more than 64 directories down"), "{stderr}");
    let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "shallow", &tree]);
    assert_eq!((code, stdout.as_str()), (1, "null\n"), "{stderr}");
    assert!(
        stderr.contains("error[HIERA_LEVEL_NOT_SEARCHABLE]"),
        "{stderr}"
    );

    #[cfg(unix)]
    {
        let (facts, tree) = tree_with_facts(
            "glob_links",
            &[
                ("hiera.yaml", config),
                ("kept/inside.yaml", "inside: 1\n"),
                ("data/common.yaml", "common: 1\n"),
            ],
        );
        let outside = std::path::Path::new(&tree).with_file_name("glob_links_outside.yaml");
        std::fs::write(&outside, "outside: 1\n").expect("write");
        let data = std::path::Path::new(&tree).join("data");
        std::os::unix::fs::symlink("../kept/inside.yaml", data.join("inside.yaml")).expect("link");
        std::os::unix::fs::symlink(&outside, data.join("outside.yaml")).expect("link");
        let (code, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "inside", "common", &tree]);
        assert_eq!((code, stdout.as_str()), (0, "1\n1\n"), "{stderr}");
        let (_, stdout, stderr) = pbc(&["lookup", "--facts", &facts, "outside", &tree]);
        assert!(stderr.contains("SYMLINK_NOT_FOLLOWED"), "{stderr}");
        assert_ne!(stdout, "1\n", "{stderr}");
        let (code, stdout, stderr) = pbc(&[
            "lookup",
            "--follow-symlinks",
            "--facts",
            &facts,
            "outside",
            &tree,
        ]);
        assert_eq!((code, stdout.as_str()), (0, "1\n"), "{stderr}");
    }
}

/// Item 62.7: a global configuration's data directory may be absolute, in version 5 as in
/// Hiera 3's format (it was refused in version 5 only, as `HIERA_PATH_ESCAPES`): the global
/// configuration is named by whoever runs pbc and names the server's directories, so
/// `--confine`, which keeps what the tree names inside it, reads it too. An environment's
/// `datadir` still stays below its `hiera.yaml` (D21).
#[test]
fn a_global_datadir_may_be_absolute_in_either_format() {
    let (facts, tree) = tree_with_facts(
        "global_datadir",
        &[
            ("global/data/common.yaml", "global::key: global\n"),
            ("global/json/common.json", "{\"global::json\": \"json\"}\n"),
        ],
    );
    let data = std::path::Path::new(&tree).join("global/data");
    let json = std::path::Path::new(&tree).join("global/json");
    let elsewhere = std::path::Path::new(&tree).with_file_name("global_datadir_configs");
    std::fs::create_dir_all(&elsewhere).expect("dir");
    let v5 = elsewhere.join("v5.yaml");
    std::fs::write(
        &v5,
        format!(
            "version: 5\nhierarchy:\n  - {{name: global, path: common.yaml, datadir: '{}'}}\n",
            data.display()
        ),
    )
    .expect("write");
    let v3 = elsewhere.join("v3.yaml");
    std::fs::write(
        &v3,
        format!(
            "---\n:backends: [yaml, json]\n:hierarchy: [common]\n:yaml:\n  :datadir: '{}'\n:json:\n  :datadir: '{}'\n",
            data.display(),
            json.display()
        ),
    )
    .expect("write");
    for (config, keys) in [(&v5, "global::key"), (&v3, "global::json")] {
        let config = config.to_string_lossy();
        for confine in [&[][..], &["--confine"][..]] {
            let mut args = vec!["lookup", "--hiera-config", &config, "--facts", &facts];
            args.extend(confine);
            args.extend(["global::key", keys, &tree]);
            let (code, stdout, stderr) = pbc(&args);
            assert_eq!(code, 0, "{config} {confine:?}: {stderr}");
            assert!(stdout.starts_with("\"global\"\n"), "{stdout}");
        }
    }
    let env = common::write_tree(
        "limits",
        "environment_datadir",
        &[],
        &[(
            "hiera.yaml",
            "version: 5\nhierarchy:\n  - {name: common, path: common.yaml, datadir: /etc/hieradata}\n",
        )],
    );
    let (code, _, stderr) = pbc(&["check", &env.to_string_lossy()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[HIERA_PATH_ESCAPES]"), "{stderr}");
}

/// Item 62.7: a `compile -o` killed (`kill -9`) while it writes leaves its temporary file
/// beside the target; the next `compile -o` to that target removes it, since its writer's
/// process is gone (it used to wait an hour), and keeps one whose writer still runs.
#[test]
#[cfg(target_os = "linux")]
fn a_killed_compile_leaves_nothing_after_the_next() {
    let mut text = String::from("bindings default {\n");
    for i in 0..100_000 {
        text.push_str(&format!("  bind 'k{i}' to {i}\n"));
    }
    text.push_str("}\n");
    let tree = common::write_tree(
        "limits",
        "killed_compile",
        &[],
        &[("bindings/default.pp", text.as_str())],
    );
    let out = tree.join("model.json");
    let temporaries = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&tree)
            .expect("tree")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".model.json.pbc-") && n.ends_with(".tmp"))
            .collect();
        names.sort();
        names
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(["compile", "-o"])
        .arg(&out)
        .arg(&tree)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pbc runs");
    loop {
        if !temporaries().is_empty() {
            child.kill().expect("SIGKILL");
            break;
        }
        assert!(
            child.try_wait().expect("wait").is_none(),
            "compile finished before its temporary file was seen"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.wait().expect("reaped");
    let left = temporaries();
    assert_eq!(left.len(), 1, "the killed run left its temporary file");
    assert!(!out.exists());
    let live = format!(".model.json.pbc-{}-live.tmp", std::process::id());
    std::fs::write(tree.join(&live), "a run still writing").expect("write");
    let (code, _, stderr) = pbc(&[
        "compile",
        "-o",
        &out.to_string_lossy(),
        &tree.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.is_file());
    assert_eq!(temporaries(), [live]);
}

/// Item 62.7: `--facts -` fed an endless stream stops at the size limit holding little more
/// than it. With 128 MiB as the limit, pbc must finish within 300 MiB of data memory besides
/// the 256 MiB its worker thread's stack reserves (`ulimit -d`): reading in pieces needs about
/// 230 MiB of it (the limit, a piece, the allocator's reserve), while `read_to_end`, doubling
/// its buffer, peaked at three times the limit and failed there ("out of memory").
#[test]
#[cfg(target_os = "linux")]
fn an_endless_facts_stream_stops_at_the_limit_in_bounded_memory() {
    use std::io::Write;
    let limit: u64 = 128 << 20;
    let data_kb = (256 << 10) + 300_000;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -d {data_kb} && exec \"$0\" lookup --max-file-size {limit} --facts - ntp::servers corpus/lookup/trees/example"
        ))
        .arg(env!("CARGO_BIN_EXE_pbc"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 16];
        // Until pbc stops reading and the pipe breaks.
        while stdin.write_all(&chunk).is_ok() {}
    });
    let out = child.wait_with_output().expect("pbc ends");
    feeder.join().expect("feeder");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("it has more than {limit} bytes")),
        "{stderr}"
    );
}

/// A Puppet expression for a value that shares its parts: `[$m, $m]` forty times over, 2^40
/// leaves in a few kilobytes.
fn shared_parts_value() -> String {
    let steps = (1..=40)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    format!("[{steps}].reduce(['x']) |$m, $x| {{ [$m, $m] }}")
}
