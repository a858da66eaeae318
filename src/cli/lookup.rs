//! `pbc lookup` and `pbc diff`: their flags made into the library's lookup options, and what
//! the library returns printed.

use super::all_exist;
use super::args::{DiffArgs, ExplainFormat, LookupArgs, LookupFormat};
use super::output::Output;
use puppet_bindings::Options;
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn lookup_command(out: Output, a: LookupArgs, options: &Options) -> ExitCode {
    let mut keys = a.args;
    let tree_given = a.tree.is_some();
    let tree = match (a.tree, keys.last()) {
        (Some(tree), _) => tree,
        // Without -C, a last argument that names a directory is the tree (scripts use it).
        (None, Some(last)) if std::path::Path::new(last).is_dir() => {
            PathBuf::from(keys.pop().unwrap_or_default())
        }
        _ => PathBuf::from("."),
    };
    if !tree.is_dir() {
        eprintln!("pbc: the tree `{}` is not a directory", tree.display());
        return ExitCode::from(2);
    }
    if a.model.is_some() && tree != std::path::Path::new(".") {
        eprintln!("pbc: --model answers from the model alone: give no tree");
        return ExitCode::from(2);
    }
    // Without -C, a path where a key is expected (a tree that is not there) is a mistake to
    // say, not a key to look up in vain. Hiera keys may hold `/` after their first segment
    // (`mounts./home.device`, `a::b."/srv/www"`), and with -C every argument is a key.
    let naming_scheme = ["/param/", "/var/", "/map/"];
    let looks_like_a_path = |k: &str| {
        let root = puppet_bindings::data::interpolation::split_key(k)
            .map_or_else(|| k.to_string(), |(root, _)| root);
        root.contains('/') && k != "/classes" && !naming_scheme.iter().any(|p| k.starts_with(p))
    };
    if let Some(path) = keys.iter().find(|k| !tree_given && looks_like_a_path(k)) {
        eprintln!(
            "pbc: `{path}` is neither a key nor a directory: keys are names (`ntp::servers`) or the naming scheme's (`/param/Class[ntp]/servers`, `/var/x`, `/classes`); give the tree with -C DIR"
        );
        return ExitCode::from(2);
    }
    if keys.is_empty() && !a.all {
        eprintln!("pbc: lookup needs keys, or --all");
        return ExitCode::from(2);
    }
    if !keys.is_empty() && a.all {
        eprintln!("pbc: --all looks up every key: give keys or --all, not both");
        return ExitCode::from(2);
    }
    if a.pretty && !a.all && a.format == LookupFormat::Text {
        eprintln!("pbc: --pretty indents JSON output: it goes with --all or --format json");
        return ExitCode::from(2);
    }
    if a.format == LookupFormat::Answers && (a.explain || a.nodes.is_some()) {
        eprintln!(
            "pbc: --format answers answers one node's keys: it goes without --explain and --nodes"
        );
        return ExitCode::from(2);
    }
    if a.facts.as_deref() == Some(std::path::Path::new("-"))
        && a.enc.as_deref() == Some(std::path::Path::new("-"))
    {
        eprintln!("pbc: standard input can be the facts (--facts -) or the ENC output (--enc -), not both");
        return ExitCode::from(2);
    }
    let outcome = puppet_bindings::inject::command::run(
        &puppet_bindings::inject::query::LookupOptions {
            keys,
            tree,
            facts: a.facts,
            node: a.node,
            fact: a.fact,
            environment: a.environment,
            agent_environment: a.agent_environment,
            type_: a.type_,
            default: a.default,
            enc: a.enc,
            all: a.all,
            explain: a.explain,
            json: a.format == LookupFormat::Json,
            answers: a.format == LookupFormat::Answers,
            pretty: a.pretty,
            strict: a.strict,
            quiet: out.quiet,
            progress: a.nodes.as_ref().and_then(|_| out.progress()),
            output: a.nodes.as_ref().map(|_| out.stdout_sink()),
            nodes: a.nodes,
            model: a.model,
            merge: a.merge,
            knock_out_prefix: a.knock_out_prefix,
            sort_merged_arrays: a.sort_merged_arrays,
            merge_hash_arrays: a.merge_hash_arrays,
            show_decrypted: a.show_decrypted,
            whole_index: false,
        },
        options,
    );
    out.finish(&outcome)
}

pub(crate) fn diff_command(out: Output, a: DiffArgs, options: &Options) -> ExitCode {
    let (old, new, keys) = match (a.model.as_slice(), a.args.as_slice()) {
        ([old, new], keys) => (old.clone(), new.clone(), keys.to_vec()),
        ([], [old, new, keys @ ..]) => (PathBuf::from(old), PathBuf::from(new), keys.to_vec()),
        ([], _) => {
            eprintln!("pbc: diff needs the old and the new tree (or model), then keys or --all");
            return ExitCode::from(2);
        }
        _ => {
            eprintln!("pbc: --model names both sides: `--model OLD --model NEW`");
            return ExitCode::from(2);
        }
    };
    if let Err(code) = all_exist(&[old.clone(), new.clone(), a.nodes.clone()]) {
        return code;
    }
    if keys.is_empty() != a.all {
        eprintln!("pbc: diff compares the keys given, or every key with --all (one of the two)");
        return ExitCode::from(2);
    }
    let opts = puppet_bindings::inject::query::LookupOptions {
        keys,
        fact: a.fact,
        environment: a.environment,
        all: a.all,
        strict: a.strict,
        quiet: out.quiet,
        progress: out.progress(),
        output: Some(out.stdout_sink()),
        ..Default::default()
    };
    let outcome = puppet_bindings::inject::diff::run(
        &opts,
        &old,
        &new,
        &a.nodes,
        None,
        a.format == ExplainFormat::Json,
        options,
    );
    out.finish(&outcome)
}
