//! Limits: deep nesting and long chains give one clean diagnostic or a normal parse, and never
//! overflow the stack. These run on the default test thread (2 MiB stack) on purpose, in debug
//! and (in CI) release builds.

use puppet_bindings::diag::{codes, Diagnostic};
use puppet_bindings::parse_file;
use puppet_bindings::span::FileId;

fn parse(src: &str) -> (bool, Vec<Diagnostic>) {
    let parsed = parse_file(FileId(0), src);
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
            bytes: format!("site {{ categories {{ {categories} }} }}\n").into_bytes(),
        },
        puppet_bindings::SourceInput {
            name: "bindings/default.pp".into(),
            role: FileRole::Bindings {
                expected_name: "default".into(),
                module: None,
            },
            bytes: bindings.as_bytes().to_vec(),
        },
    ];
    let report = puppet_bindings::check_sources(inputs);
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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbc"))
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
    let short = std::process::Command::new(env!("CARGO_BIN_EXE_pbc"))
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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbc"))
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
