//! `pbc check` and `pbc lookup` never contradict each other (D18), on random trees.
//!
//! Each tree has 2-3 categories of 2-3 values, 2-3 layers, and bindings of a few keys under
//! `when`s (single, `and`, `or`, nested), abstract and `override` bindings, conflicts, and
//! contributions to an Array and a Hash multibind with random options and combinators.
//! Every request is tried: each category at each of its values, at a value no predicate
//! names, and absent. Then:
//!
//! - an error of `check` fails the key for every request its bindings apply to;
//! - a request that fails a key with a composition error was warned about (or errored) by
//!   `check`, with the same code;
//! - every finding of `check` is met by some request (no warning about nothing).
//!
//! `cargo test` runs a few hundred trees; `cargo test -- --ignored` runs many more.

use crate::common;

use puppet_bindings::compose::is_per_key;
use puppet_bindings::diag::Severity;
use puppet_bindings::eval::Value;
use puppet_bindings::inject::{ForInjection, Injector};
use puppet_bindings::load::environment::{prepare, PrepareError};
use puppet_bindings::load::Request;
use puppet_bindings::types::PType;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// splitmix64: a reproducible stream from a seed, no dependency needed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn percent(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }
}

/// When a binding applies: alternatives of conjunctions of (category, value).
type Condition = Vec<Vec<(usize, usize)>>;

/// A generated binding: the key it binds, its file (layer) and line, when it applies.
struct Generated {
    key: String,
    layer: usize,
    line: usize,
    condition: Condition,
}

struct Tree {
    /// Values per category.
    categories: Vec<usize>,
    layers: usize,
    files: Vec<String>,
    bindings: Vec<Generated>,
    keys: Vec<String>,
}

const PLAIN_KEYS: usize = 4;

fn generate(rng: &mut Rng) -> Tree {
    let categories: Vec<usize> = (0..2 + rng.below(2)).map(|_| 2 + rng.below(2)).collect();
    let layers = 2 + rng.below(2);
    let mut tree = Tree {
        categories,
        layers,
        files: Vec::new(),
        bindings: Vec::new(),
        keys: (0..PLAIN_KEYS)
            .map(|k| format!("key_{k}"))
            .chain(["key_m0".to_string(), "key_m1".to_string()])
            .collect(),
    };
    for layer in 0..layers {
        let mut text = format!("bindings l{layer} {{\n");
        let mut line = 2;
        if layer == 0 {
            let on_named = rng.percent(70);
            let on_unnamed = rng.percent(30);
            let array_combinator = if rng.percent(20) {
                ", combinator => |$memo, $x| { $memo + [$x] }"
            } else {
                ""
            };
            let hash_options = [
                "conflict_resolution => priority",
                "conflict_resolution => ignore",
                "conflict_resolution => error",
                "conflict_resolution => append",
                "combinator => |$key, $current, $value| { $value }",
            ][rng.below(5)];
            let _ = writeln!(text, "  multibind Array[Data], 'key_m0' {{ priority_on_named => {on_named}, priority_on_unnamed => {on_unnamed}{array_combinator} }}");
            let _ = writeln!(
                text,
                "  multibind Hash[String, Data], 'key_m1' {{ {hash_options} }}"
            );
            line += 2;
        }
        let items = rng.below(7);
        for _ in 0..items {
            item(
                rng,
                &mut tree,
                layer,
                &vec![vec![]],
                1,
                &mut text,
                &mut line,
            );
        }
        text.push_str("}\n");
        tree.files.push(text);
    }
    tree
}

fn item(
    rng: &mut Rng,
    tree: &mut Tree,
    layer: usize,
    outer: &Condition,
    depth: usize,
    text: &mut String,
    line: &mut usize,
) {
    let indent = "  ".repeat(depth);
    if depth < 3 && rng.percent(40) {
        let predicate = |rng: &mut Rng, tree: &Tree| {
            let c = rng.below(tree.categories.len());
            (c, rng.below(tree.categories[c]))
        };
        let (written, alternatives): (String, Condition) = match rng.below(5) {
            0 => {
                let (a, b) = (predicate(rng, tree), predicate(rng, tree));
                (
                    format!("{} and {}", pred_text(a), pred_text(b)),
                    vec![vec![a, b]],
                )
            }
            1 => {
                let (a, b) = (predicate(rng, tree), predicate(rng, tree));
                (
                    format!("{} or {}", pred_text(a), pred_text(b)),
                    vec![vec![a], vec![b]],
                )
            }
            _ => {
                let a = predicate(rng, tree);
                (pred_text(a), vec![vec![a]])
            }
        };
        let mut inner: Condition = Vec::new();
        for o in outer {
            for a in &alternatives {
                inner.push(o.iter().chain(a).copied().collect());
            }
        }
        let _ = writeln!(text, "{indent}when {written} {{");
        *line += 1;
        for _ in 0..1 + rng.below(3) {
            item(rng, tree, layer, &inner, depth + 1, text, line);
        }
        let _ = writeln!(text, "{indent}}}");
        *line += 1;
        return;
    }
    let value = rng.below(100);
    let key = format!("key_{}", rng.below(PLAIN_KEYS));
    let (written, key) = match rng.below(10) {
        0 => (format!("bind abstract '{key}'"), key),
        1 => (format!("bind override '{key}' to {value}"), key),
        2 | 3 => {
            if rng.percent(50) {
                (
                    format!("bind 'n{}' to {value} in 'key_m0'", rng.below(2)),
                    "key_m0".to_string(),
                )
            } else {
                (format!("bind to {value} in 'key_m0'"), "key_m0".to_string())
            }
        }
        4 => (
            format!("bind 'n{}' to {value} in 'key_m1'", rng.below(2)),
            "key_m1".to_string(),
        ),
        _ => (format!("bind '{key}' to {value}"), key),
    };
    let _ = writeln!(text, "{indent}{written}");
    tree.bindings.push(Generated {
        key,
        layer,
        line: *line,
        condition: outer.clone(),
    });
    *line += 1;
}

fn pred_text((c, v): (usize, usize)) -> String {
    format!("cat{c} 'v{v}'")
}

/// The tree's files: its site (categories, layers) and one bindings file per layer.
fn files(tree: &Tree) -> Vec<(String, String)> {
    let mut site = String::from("site {\n  categories {");
    for c in 0..tree.categories.len() {
        let _ = write!(site, " cat{c} => $::cat{c},");
    }
    site.push_str(" }\n  bindings => [");
    for l in 0..tree.layers {
        let _ = write!(site, " layer {{ 'l{l}': include => 'confdir:/l{l}' }},");
    }
    site.push_str(" ]\n}\n");
    let mut files = vec![("manifests/site.pp".to_string(), site)];
    for (l, text) in tree.files.iter().enumerate() {
        files.push((format!("bindings/l{l}.pp"), text.clone()));
    }
    files
}

/// Every request: per category, one of its values, a value no predicate names, or absent.
fn requests(tree: &Tree) -> Vec<Vec<Option<usize>>> {
    let mut all: Vec<Vec<Option<usize>>> = vec![Vec::new()];
    for &values in &tree.categories {
        let mut next = Vec::new();
        for r in &all {
            // `values` stands for the unnamed value, `None` for absent.
            for v in (0..=values).map(Some).chain([None]) {
                let mut r = r.clone();
                r.push(v);
                next.push(r);
            }
        }
        all = next;
    }
    all
}

fn applies(condition: &Condition, request: &[Option<usize>]) -> bool {
    condition
        .iter()
        .any(|conj| conj.iter().all(|&(c, v)| request[c] == Some(v)))
}

/// A composition finding of `check`: the key, its code and severity, and the (layer, line) of
/// the bindings it is about.
#[derive(Debug)]
struct Finding {
    key: String,
    code: &'static str,
    severity: Severity,
    about: Vec<(usize, usize)>,
    text: String,
}

fn findings(root: &Path) -> Vec<Finding> {
    let report =
        puppet_bindings::check_paths(&[root.to_path_buf()], &Default::default()).expect("readable");
    let mut out = Vec::new();
    for d in &report.diagnostics {
        assert!(
            is_per_key(d.code),
            "generated trees have only composition findings: {} {}",
            d.code,
            d.message
        );
        let key = d
            .message
            .split('`')
            .find(|w| w.starts_with("key_"))
            .unwrap_or_else(|| panic!("no key in {}", d.message))
            .to_string();
        let place = |span: puppet_bindings::span::Span| {
            let name = report.files.name(span.file);
            let layer: usize = name
                .rsplit('/')
                .next()
                .and_then(|f| f.strip_prefix('l'))
                .and_then(|f| f.strip_suffix(".pp"))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{name}"));
            (layer, report.files.line_col(span.file, span.start).0)
        };
        let mut about = vec![place(d.span)];
        if matches!(d.code, "CONFLICTING_BINDINGS" | "MULTIBIND_CONTRIBUTION") {
            if let Some((span, _)) = d.labels.first() {
                about.push(place(*span));
            }
        }
        out.push(Finding {
            key,
            code: d.code,
            severity: d.severity,
            about,
            text: format!("{}: {} {:?}", d.code, d.message, d.notes),
        });
    }
    out
}

/// A request (per category: a value, the unnamed value, or absent) and, per key, `Ok` or
/// the composition error's code.
type Answers = Vec<(
    Vec<Option<usize>>,
    BTreeMap<String, Result<(), &'static str>>,
)>;

/// For every request and key: `Ok` or the composition error's code.
fn lookups(tree: &Tree, root: &Path) -> Answers {
    let base = Request::default();
    let (selected, loaded) = match prepare(root, &base, &Default::default()) {
        Ok(ready) => ready,
        Err(PrepareError::Io(e)) => panic!("{e}"),
        Err(PrepareError::Diagnostics { diagnostics, .. }) => {
            panic!(
                "{:?}",
                diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
            )
        }
    };
    let model = loaded.tree_model(ForInjection);
    let mut out = Vec::new();
    for r in requests(tree) {
        let mut request = Request::default();
        request
            .facts
            .insert("fqdn".into(), Value::string("n.example.com"));
        for (c, v) in r.iter().enumerate() {
            match v {
                Some(v) if *v == tree.categories[c] => {
                    request
                        .facts
                        .insert(format!("cat{c}").into(), Value::string("zz"));
                }
                Some(v) => {
                    request
                        .facts
                        .insert(format!("cat{c}").into(), Value::string(format!("V{v}")));
                }
                None => {}
            }
        }
        let mut injector =
            Injector::new(&model, &selected, &request).unwrap_or_else(|d| panic!("{}", d.message));
        let mut results = BTreeMap::new();
        for key in &tree.keys {
            let result = match injector.lookup(key, &PType::Data) {
                Ok(_) => Ok(()),
                Err(d) => {
                    assert!(is_per_key(d.code), "{}: {}", d.code, d.message);
                    Err(d.code)
                }
            };
            results.insert(key.clone(), result);
        }
        out.push((r, results));
    }
    out
}

/// What one tree showed.
#[derive(Default)]
struct Counts {
    requests: usize,
    errors: usize,
    warnings: usize,
    failed_lookups: usize,
}

/// Checks one tree.
fn agree(seed: u64, dir: &str, counts: &mut Counts) {
    let mut rng = Rng(seed);
    let tree = generate(&mut rng);
    let files = files(&tree);
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let root = common::write_tree("composition_property", dir, &[], &files);
    let found = findings(&root);
    let answers = lookups(&tree, &root);
    let show = || {
        let mut s = String::new();
        for (l, f) in tree.files.iter().enumerate() {
            let _ = writeln!(s, "--- l{l}.pp\n{f}");
        }
        for f in &found {
            let _ = writeln!(s, "check: {:?} {}", f.severity, f.text);
        }
        s
    };
    let binding_at = |(layer, line): (usize, usize)| {
        tree.bindings
            .iter()
            .find(|b| b.layer == layer && b.line == line)
            .unwrap_or_else(|| panic!("no binding at l{layer}:{line}\n{}", show()))
    };
    for f in &found {
        let about: Vec<&Generated> = f.about.iter().map(|&p| binding_at(p)).collect();
        assert!(
            about.iter().all(|b| b.key == f.key),
            "seed {seed}: a finding about `{}` points at another key's binding\n{}",
            f.key,
            show()
        );
        let relevant: Vec<_> = answers
            .iter()
            .filter(|(r, _)| about.iter().all(|b| applies(&b.condition, r)))
            .collect();
        let failing = relevant
            .iter()
            .filter(|(_, results)| results[&f.key] == Err(f.code))
            .count();
        assert!(
            failing > 0,
            "seed {seed}: check reports what no request meets\n{}",
            show()
        );
        if f.severity == Severity::Error {
            for (r, results) in &relevant {
                assert!(
                    results[&f.key].is_err(),
                    "seed {seed}: check says `{}` always fails, but request {r:?} gets a value\n{}",
                    f.key,
                    show()
                );
            }
        }
    }
    let reported: BTreeSet<(&str, &str)> = found.iter().map(|f| (f.key.as_str(), f.code)).collect();
    for (r, results) in &answers {
        for (key, result) in results {
            if let Err(code) = result {
                assert!(
                    reported.contains(&(key.as_str(), *code)),
                    "seed {seed}: request {r:?} fails `{key}` with {code}, which check did not report\n{}",
                    show()
                );
            }
        }
    }
    counts.requests += answers.len();
    counts.errors += found
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    counts.warnings += found
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    counts.failed_lookups += answers
        .iter()
        .map(|(_, results)| results.values().filter(|r| r.is_err()).count())
        .sum::<usize>();
}

fn run(trees: u64, first_seed: u64) {
    let mut counts = Counts::default();
    let dir = format!("from{first_seed}");
    for seed in first_seed..first_seed + trees {
        agree(seed, &dir, &mut counts);
    }
    println!(
        "{trees} trees, {} requests, {} check errors, {} check warnings, {} failed lookups: no contradiction",
        counts.requests, counts.errors, counts.warnings, counts.failed_lookups
    );
    // The generator must keep producing every kind of outcome, or the test proves little.
    assert!(counts.errors > 0 && counts.warnings > 0 && counts.failed_lookups > 0);
}

#[test]
fn check_and_lookup_agree_on_random_trees() {
    run(300, 1);
}

#[test]
#[ignore = "a long run: cargo test --release --test it composition_property -- --ignored"]
fn check_and_lookup_agree_on_many_random_trees() {
    run(20_000, 1_000);
}
