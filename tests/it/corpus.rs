//! Corpus-driven snapshot tests: every `corpus/**/*.pp` file gets an insta snapshot in
//! `snapshots/`. Files under a `valid/` folder must parse without errors and snapshot their AST
//! as JSON; files under `invalid/` must produce at least one error and snapshot the rendered
//! diagnostics. Files under `corpus/pn/` must parse and snapshot their PN JSON (what
//! `puppet parser dump --format json` prints; `scripts/conformance.sh` checks these snapshots
//! against Puppet itself). Review changes with `cargo insta review`.

use puppet_bindings::diag;
use puppet_bindings::span::SourceMap;
use puppet_bindings::{parse_file, source};
use std::path::Path;

fn render(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("corpus file is readable");
    let name = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    let valid = name.contains("/valid/");
    let mut files = SourceMap::new();
    let (id, bad) = source::add_source(&mut files, name.clone(), bytes.into());
    let mut diags = Vec::new();
    let mut program = None;
    if let Some(d) = bad {
        diags.push(d);
    } else {
        let parsed = parse_file(id, files.source(id));
        diags = parsed.diagnostics;
        program = parsed.program;
    }
    let has_errors = diags.iter().any(|d| d.is_error());
    if valid {
        assert!(
            !has_errors,
            "{name} must parse without errors:\n{}",
            diag::render_text(&files, &diags)
        );
        let mut out = serde_json::to_string_pretty(&program).expect("AST serialises");
        if !diags.is_empty() {
            out.push_str("\n---- warnings ----\n");
            out.push_str(&diag::render_text(&files, &diags));
        }
        out
    } else {
        assert!(has_errors, "{name} must produce an error");
        assert!(program.is_none(), "{name}: no AST for a file with errors");
        diag::render_text(&files, &diags)
    }
}

#[test]
fn corpus() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../../corpus/parse", "**/*.pp", |path| {
            // Parsing runs on a big stack: the corpus includes nesting at the limits.
            let p = path.to_path_buf();
            let out = std::thread::Builder::new()
                .stack_size(64 * 1024 * 1024)
                .spawn(move || render(&p))
                .expect("spawn")
                .join()
                .expect("corpus case does not panic");
            insta::assert_snapshot!(out);
        });
    });
}

fn render_pn(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("PN corpus file is UTF-8");
    let parsed = parse_file(puppet_bindings::span::FileId(0), &text);
    let errors: Vec<_> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(
        errors.is_empty(),
        "{} must parse: {errors:?}",
        path.display()
    );
    let program = parsed.program.expect("a file without errors has a program");
    puppet_bindings::pn::program_to_json(&program)
}

#[test]
fn pn_corpus() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../../corpus/pn", "*.pp", |path| {
            insta::assert_snapshot!(render_pn(path));
        });
    });
}

/// `corpus/validate/`: files that parse but break Puppet's parse-time rules; the snapshot is the
/// rendered diagnostics of `pbc parse --validate` (scripts/conformance.sh checks the verdicts and
/// lines against Puppet on the real corpus and its mutants).
fn render_validate(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("validate corpus file is UTF-8");
    let name = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    let mut files = SourceMap::new();
    let (id, _) = source::add_source(&mut files, name.clone(), text.into_bytes().into());
    let parsed = puppet_bindings::parse_and_validate(id, files.source(id));
    assert!(
        parsed.program.is_some(),
        "{name} must parse: {:?}",
        parsed.diagnostics
    );
    let mut diags = parsed.diagnostics;
    assert!(!diags.is_empty(), "{name} must produce a diagnostic");
    diag::sort(&mut diags);
    diag::render_text(&files, &diags)
}

#[test]
fn validate_corpus() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../../corpus/validate", "*.pp", |path| {
            insta::assert_snapshot!(render_validate(path));
        });
    });
}

/// Puppet 7's dumper crashes on splat parameters and on parameter names that are not valid map
/// keys (reference section 3); pbc writes what was evidently meant. These are the documented
/// divergences of `scripts/conformance-divergences.tsv`.
#[test]
fn pn_where_puppet_crashes() {
    let pn = |src: &str| {
        let parsed = parse_file(puppet_bindings::span::FileId(0), src);
        puppet_bindings::pn::program_to_json(&parsed.program.expect("parses"))
    };
    assert_eq!(
        pn("define foo(*$rest) {}"),
        "{\"^\":[\"define\",{\"#\":[\"name\",\"foo\",\"params\",{\"#\":[\"rest\",{\"#\":[\"splat\",true]}]}]}]}\n"
    );
    assert!(pn("$x.foo |String *$a = []| { 1 }")
        .contains("{\"#\":[\"a\",{\"#\":[\"type\",{\"^\":[\"qr\",\"String\"]},\"splat\",true,\"value\",{\"^\":[\"array\"]}]}]}"));
    assert!(pn("define foo($0) {}").contains("\"params\",{\"#\":[\"0\",{\"#\":[]}]}"));
}

/// Every diagnostic code in `diag::codes` has at least one failing corpus file that shows it.
#[test]
fn every_code_has_a_corpus_case() {
    let codes_src = include_str!("../../crates/syntax/src/diag/codes.rs");
    let snaps = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let mut all = String::new();
    for entry in std::fs::read_dir(&snaps).expect("snapshots dir") {
        let p = entry.expect("entry").path();
        if p.extension().is_some_and(|e| e == "snap") {
            all.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
    let mut missing = Vec::new();
    for line in codes_src.lines() {
        if let Some(rest) = line.strip_prefix("pub const ") {
            let code = rest.split(':').next().unwrap_or("").trim();
            if !all.contains(&format!("[{code}]")) {
                missing.push(code.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "codes without a failing corpus case: {missing:?}"
    );
}

/// Site and bindings blocks write their span once (it is the enclosing expression's span):
/// a duplicated JSON key would be silently dropped by most readers.
#[test]
fn bindings_and_site_spans_are_written_once() {
    for src in ["bindings x { }", "site { }"] {
        let parsed = parse_file(puppet_bindings::span::FileId(0), src);
        let json = serde_json::to_string(&parsed.program.expect("parses")).expect("serialises");
        // One for the program, one for the block expression.
        assert_eq!(json.matches("\"span\":").count(), 2, "{json}");
    }
}

/// Every expression of every file that parses in `corpus/` reads back from its PN (as a model's
/// embedded expressions are, `pbc lookup --model`) and writes the same PN again; definitions,
/// which no binding holds, are the only ones refused.
#[test]
fn pn_reads_back_to_itself() {
    let files = corpus_manifests();
    let (mut read, mut definitions) = (0, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Some(program) = parse_file(puppet_bindings::span::FileId(0), &text).program else {
            continue;
        };
        // Definitions are refused whole; the statements of their bodies are read one by one.
        let mut statements: Vec<&puppet_bindings::ast::Expr> = program.body.iter().collect();
        while let Some(e) = statements.pop() {
            use puppet_bindings::ast::ExprKind;
            match &e.kind {
                ExprKind::Class(d) => statements.extend(&d.body),
                ExprKind::Define(d) => statements.extend(&d.body),
                ExprKind::Node(d) => statements.extend(&d.body),
                ExprKind::Function(d) => statements.extend(&d.body),
                _ => {}
            }
            let written = puppet_bindings::pn::expr_to_json(e);
            let mut de = serde_json::Deserializer::from_str(&written);
            de.disable_recursion_limit();
            let json: serde_json::Value =
                serde::Deserialize::deserialize(&mut de).expect("PN is JSON");
            match puppet_bindings::pn::read::expr(&json) {
                Ok(back) => {
                    assert_eq!(
                        puppet_bindings::pn::expr_to_json(&back),
                        written,
                        "{}",
                        path.display()
                    );
                    read += 1;
                }
                Err(e) => {
                    assert!(e.0.contains("definition"), "{}: {}", path.display(), e.0);
                    definitions += 1;
                }
            }
        }
    }
    assert!(
        read >= 250 && definitions >= 200,
        "{read} read, {definitions} definitions"
    );
}

/// `pbc parse` takes each top-level statement as it is parsed (`parse_file_statements`): on
/// every corpus file that gives the diagnostics of the whole parse and, where it has no error,
/// the same statements and the same PN.
#[test]
fn statements_as_they_come_make_the_whole_program() {
    let files = corpus_manifests();
    let mut compared = 0;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let p = path.clone();
        // Parsing runs on a big stack: the corpus includes nesting at the limits.
        let agreed = std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                let id = puppet_bindings::span::FileId(0);
                let whole = parse_file(id, &text);
                let mut statements = Vec::new();
                let mut pn = puppet_bindings::pn::ProgramPn::default();
                let found = puppet_bindings::parse_file_statements(id, &text, &mut |s| {
                    pn.statement(&s);
                    statements.push(s);
                });
                assert_eq!(
                    format!("{found:?}"),
                    format!("{:?}", whole.diagnostics),
                    "{}: diagnostics",
                    p.display()
                );
                let Some(program) = whole.program else {
                    return false;
                };
                assert_eq!(
                    serde_json::to_string(&statements).expect("AST serialises"),
                    serde_json::to_string(&program.body).expect("AST serialises"),
                    "{}: statements",
                    p.display()
                );
                assert_eq!(
                    pn.finish(),
                    puppet_bindings::pn::program_to_json(&program),
                    "{}: PN",
                    p.display()
                );
                true
            })
            .expect("spawn")
            .join()
            .expect("corpus case does not panic");
        compared += usize::from(agreed);
    }
    assert!(compared > 100, "only {compared} corpus files compared");
}

/// Every `.pp` file under `corpus/`, in name order.
fn corpus_manifests() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "pp") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        &mut files,
    );
    files
}
