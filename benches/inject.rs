//! The injector on a generated tree: `cargo bench --bench inject [FILES]` (default 10,000
//! bindings files of 10 bindings: about 110,000 bindings over 10 site categories and three
//! layers; see `common/mod.rs`). Prints the time to build one node's effective bindings
//! (environment, categories, the index of the model's bindings), then on an index shared by
//! many nodes the build and `--all` (every key composed and produced), and the time per lookup
//! of constant keys, first and repeated. Goals (issues 6 and 16): under 100 ms to build,
//! `--all` within 20 ms on the shared index, under 1 microsecond per constant lookup.

mod common;

use puppet_bindings::eval::Value;
use puppet_bindings::inject::{ForInjection, Injector};
use puppet_bindings::load::{environment, Request};
use puppet_bindings::types::PType;
use std::time::Instant;

fn main() {
    let files = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(10_000);
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("inject-{files}"));
    let spec = common::TreeSpec {
        files,
        bindings_per_file: 10,
        categories: 10,
    };
    let generated = common::generate(&root, &spec).expect("the tree is written");
    let mut request = Request::default();
    request
        .facts
        .insert("fqdn".into(), Value::string("node1.example.com"));
    for c in 0..spec.categories {
        request.facts.insert(
            format!("fact{c}").into(),
            Value::string(format!("v{}", c % 7)),
        );
    }
    let Ok((selected, loaded)) = environment::prepare(&root, &request, &Default::default()) else {
        panic!("the generated tree must check clean");
    };
    let start = Instant::now();
    let model = loaded.tree_model(ForInjection);
    let lowered = start.elapsed();
    let environments = loaded.environments_program();

    let rounds = 5;
    let mut best_build = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        // Selecting the environment (evaluating environments.pp) is part of every request.
        let selected = environment::select(&root, environments, &request, &Default::default())
            .expect("selects");
        let injector = Injector::new(&model, &selected, &request).expect("the injector builds");
        best_build = best_build.min(start.elapsed().as_secs_f64());
        std::hint::black_box(&injector);
    }
    println!(
        "tree: {} bindings in {} files; lowering for the injector: {:.0} ms",
        generated.bindings,
        generated.files,
        lowered.as_secs_f64() * 1e3
    );
    println!(
        "build effective bindings for one node: best of {rounds}: {:.1} ms",
        best_build * 1e3
    );
    // Many nodes of one environment (`pbc lookup --nodes`, `pbc diff`): the index of the
    // model's bindings is built once and shared; each node only matches it.
    let index = std::sync::Arc::new(puppet_bindings::compose::Bindings::build(
        &model.layers.layers,
    ));
    let mut best_shared = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        let selected = environment::select(&root, environments, &request, &Default::default())
            .expect("selects");
        let injector = Injector::with_index(&model, Some(index.clone()), &selected, &request)
            .expect("the injector builds");
        best_shared = best_shared.min(start.elapsed().as_secs_f64());
        std::hint::black_box(&injector);
    }
    println!(
        "build for one more node on the shared index: best of {rounds}: {:.2} ms (the `when`s are matched as lookups need them)",
        best_shared * 1e3,
    );
    // `--all` for one more node: every key's winner, so every `when` matched, and every value.
    // The first node on a fresh index also produces the values no request can change, which
    // the others share.
    let index = std::sync::Arc::new(puppet_bindings::compose::Bindings::build(
        &model.layers.layers,
    ));
    let mut first_all = None;
    let mut best_all = f64::MAX;
    let mut count = 0;
    for _ in 0..=rounds {
        let start = Instant::now();
        let selected = environment::select(&root, environments, &request, &Default::default())
            .expect("selects");
        let mut injector = Injector::with_index(&model, Some(index.clone()), &selected, &request)
            .expect("the injector builds");
        let keys = injector.effective_entries();
        count = keys.len();
        for k in &keys {
            std::hint::black_box(injector.lookup_effective(k).ok());
        }
        let took = start.elapsed().as_secs_f64();
        match first_all {
            None => first_all = Some(took),
            Some(_) => best_all = best_all.min(took),
        }
    }
    println!(
        "--all for one more node on the shared index ({count} keys): best of {rounds}: {:.1} ms (the first node on it: {:.1} ms)",
        best_all * 1e3,
        first_all.unwrap_or_default() * 1e3
    );

    // Constant keys: `mK::k0` is a literal string in every module.
    let modules = files.saturating_sub(files / 100 + 1).max(1);
    let names: Vec<String> = (0..modules.min(10_000))
        .map(|m| format!("m{m}::k0"))
        .collect();
    let mut injector = Injector::new(&model, &selected, &request).expect("the injector builds");
    let start = Instant::now();
    for n in &names {
        let found = injector.lookup(n, &PType::Data).expect("no error");
        std::hint::black_box(found);
    }
    let first = start.elapsed().as_secs_f64() / names.len() as f64;
    let repeats = 10;
    let start = Instant::now();
    for _ in 0..repeats {
        for n in &names {
            let found = injector.lookup(n, &PType::Data).expect("no error");
            std::hint::black_box(found);
        }
    }
    let again = start.elapsed().as_secs_f64() / (names.len() * repeats) as f64;
    println!(
        "constant lookup ({} keys): first {:.2} us, repeated {:.2} us per lookup",
        names.len(),
        first * 1e6,
        again * 1e6
    );
}
