//! The injector's rules one at a time, on small trees written to a temporary directory: layer
//! and precedence composition (D6, D11, D13) and every multibind option (D14). Trees here may
//! break `pbc check`'s static rules on purpose: the injector is built from them directly, to
//! show what a request meets when the check could not tell.

use crate::common;

use puppet_bindings::eval::Value;
use puppet_bindings::inject::{ForInjection, Injector};
use puppet_bindings::load::environment::{self, SelectedEnvironment};
use puppet_bindings::load::Request;
use puppet_bindings::types::PType;
use puppet_bindings::LoadedTree;
use std::path::{Path, PathBuf};

/// Writes `files` (path, text) under a fresh directory named `name`, with a site declaring
/// `node > data_center > environment` and the layers `high` (`confdir:/high`) and `low`
/// (`confdir:/low`), unless `files` has its own `manifests/site.pp`.
fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let site = "site {\n  categories { node => \"${::fqdn}\", data_center => $::dc, environment => true }\n  bindings => [layer { 'high': include => 'confdir:/high' }, layer { 'low': include => 'confdir:/low' }]\n}\n";
    common::write_tree("inject", name, &[("manifests/site.pp", site)], files)
}

/// Looks up each key for a node `web01` in data center `ams`: the value in Puppet notation or
/// the error code.
fn lookups(root: &Path, keys: &[&str]) -> Vec<String> {
    let mut request = Request::default();
    request.facts.insert("fqdn".into(), Value::string("web01"));
    request.facts.insert("dc".into(), Value::string("AMS"));
    let (environment, loaded) = prepared(root, &request);
    let model = loaded.tree_model(ForInjection);
    let mut injector = Injector::new(&model, &environment, &request)
        .unwrap_or_else(|d| panic!("{}: {}", d.code, d.message));
    answers(&mut injector, keys)
}

/// Each key's value in Puppet notation, or the error code.
fn answers(injector: &mut Injector, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .map(|k| match injector.lookup(k, &PType::Data) {
            Ok(Some(v)) => v.to_string(),
            Ok(None) => "not found".to_string(),
            Err(d) => d.code.to_string(),
        })
        .collect()
}

/// The request's environment and its files, loaded without the check's verdict: these trees
/// may break static rules on purpose.
fn prepared(root: &Path, request: &Request) -> (SelectedEnvironment, LoadedTree) {
    let environment = environment::select(root, None, request, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.message));
    let files = environment.layout.files(&Default::default()).expect("tree");
    let loaded = puppet_bindings::load_tree_files(&files, Some(root), &Default::default())
        .expect("readable");
    (environment, loaded)
}

fn check(name: &str, files: &[(&str, &str)], expected: &[(&str, &str)]) {
    let root = tree(name, files);
    let keys: Vec<&str> = expected.iter().map(|(k, _)| *k).collect();
    let got = lookups(&root, &keys);
    let want: Vec<String> = expected.iter().map(|(_, v)| v.to_string()).collect();
    assert_eq!(got, want, "{name}: keys {keys:?}");
}

#[test]
fn higher_precedence_wins_within_a_layer() {
    check(
        "precedence",
        &[(
            "bindings/high.pp",
            "bindings high {\n  bind 'a' to 'common'\n  when data_center 'ams' { bind 'a' to 'dc' }\n  when environment 'production' { bind 'a' to 'env' }\n  bind 'b' to 'common'\n  when environment 'production' { bind 'b' to 'env' }\n  when data_center 'ams' and environment 'production' { bind 'c' to 'dc+env' }\n  when data_center 'ams' { bind 'c' to 'dc' }\n  when node 'web01' { bind 'd' to 'node' }\n  when data_center 'ams' and environment 'production' { bind 'd' to 'dc+env' }\n}\n",
        )],
        &[("a", "'dc'"), ("b", "'env'"), ("c", "'dc+env'"), ("d", "'node'")],
    );
}

#[test]
fn a_higher_layer_shadows_a_more_specific_lower_binding() {
    check(
        "shadowing",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  bind 'a' to 'high'\n}\n",
            ),
            (
                "bindings/low.pp",
                "bindings low {\n  when node 'web01' { bind 'a' to 'low, node' }\n}\n",
            ),
        ],
        &[("a", "'high'")],
    );
}

#[test]
fn a_non_matching_category_shadows_nothing() {
    check(
        "non_matching",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  when data_center 'fra' { bind 'a' to 'high, fra' }\n  when nosuch 'x' { bind 'b' to 'unknown category' }\n}\n",
            ),
            ("bindings/low.pp", "bindings low {\n  bind 'a' to 'low'\n  bind 'b' to 'low'\n}\n"),
        ],
        &[("a", "'low'"), ("b", "'low'")],
    );
}

#[test]
fn equal_precedence_in_one_layer_is_a_conflict() {
    check(
        "conflict",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  when data_center 'ams' { bind 'a' to 1 }\n  when data_center 'ams' { bind 'a' to 2 }\n  when data_center 'fra' { bind 'b' to 1 }\n  when data_center 'fra' { bind 'b' to 2 }\n}\n",
            ),
            ("bindings/low.pp", "bindings low {\n  bind 'b' to 'low'\n}\n"),
        ],
        // `b`'s conflict is in bindings that do not apply: no conflict for this request.
        &[("a", "CONFLICTING_BINDINGS"), ("b", "'low'")],
    );
}

#[test]
fn abstract_and_override_resolution() {
    check(
        "abstract_override",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  bind abstract 'a'\n  bind override 'b' to 'high'\n  bind override 'c' to 'high'\n  bind abstract 'd'\n  when data_center 'ams' { bind 'd' to 'concrete, ams' }\n  bind abstract 'e'\n  bind override 'f' to 'high'\n  when node 'web01' { bind 'f' to 'node' }\n}\n",
            ),
            (
                "bindings/low.pp",
                "bindings low {\n  bind 'a' to 'low'\n  bind 'b' to 'low'\n  bind abstract 'g'\n}\n",
            ),
        ],
        &[
            // Abstract in the higher layer, concrete only lower: the abstract one surfaces.
            ("a", "ABSTRACT_NOT_OVERRIDDEN"),
            ("b", "'high'"),
            ("c", "UNRESOLVED_OVERRIDE"),
            // Concrete beats abstract in one layer.
            ("d", "'concrete, ams'"),
            ("e", "ABSTRACT_NOT_OVERRIDDEN"),
            // The override lost to a more specific binding: its flag does not matter.
            ("f", "'node'"),
            ("g", "ABSTRACT_NOT_OVERRIDDEN"),
        ],
    );
}

#[test]
fn lookups_aliases_and_transformers() {
    check(
        "producers",
        &[(
            "bindings/high.pp",
            "bindings high {\n  bind 'base' to 20\n  bind 'via_lookup' to lookup('base') + 1\n  bind 'named' to producer 'base'\n  bind alias 'base' as 'alias'\n  bind 'maybe' to optional lookup('absent')\n  bind 'shout' to 'quiet' { transformer => |$v| { upcase($v) } }\n  bind 'typed' to lookup('base', Integer)\n  bind 'injected' to inject(Integer, 'base') * 2\n}\n",
        )],
        &[
            ("via_lookup", "21"),
            ("named", "NEEDS_RUNTIME"),
            ("alias", "20"),
            ("maybe", "not found"),
            ("shout", "'QUIET'"),
            ("typed", "20"),
            ("injected", "40"),
        ],
    );
}

/// Every signature of `lookup` (D23): a type as a String, a default, options (`key`,
/// `first_found`, `default`, `accept_undef`), a lambda of one to three parameters, and the
/// errors for a wrong type, a missing key and an unknown option.
#[test]
fn lookup_signatures() {
    check(
        "lookup_signatures",
        &[(
            "bindings/high.pp",
            r#"bindings high {
  bind 'base' to 20
  bind 'list' to ['a']
  bind 'k1' to lookup('base', 'Integer')
  bind 'k2' to lookup('absent', Integer, 5)
  bind 'k3' to lookup({'first_found' => ['nope', 'base']})
  bind 'k13' to lookup('absent', {'first_found' => ['base']})
  bind 'k4' to lookup('absent', {'default' => 'd'})
  bind 'k5' to lookup('absent') |$r| { if $r == undef { 'none' } else { $r } }
  bind 'k6' to lookup('base') |$name, $r| { "${name}=${r}" }
  bind 'k7' to lookup('absent', {'accept_undef' => true}) == undef
  bind 'k8' to lookup('list', 'Array[Integer]')
  bind 'k9' to lookup('absent')
  bind 'k10' to lookup('base', {'tpye' => Integer})
  bind 'k11' to lookup(['nope', 'base'])
  bind 'k12' to lookup('absent', undef, 3) |$n, $r, $d| { [$n, $r, $d] }
}
"#,
        )],
        &[
            ("k1", "20"),
            ("k2", "5"),
            ("k3", "20"),
            ("k4", "'d'"),
            ("k5", "'none'"),
            ("k6", "'base=20'"),
            ("k7", "true"),
            ("k8", "LOOKUP_TYPE_MISMATCH"),
            ("k9", "KEY_NOT_FOUND"),
            ("k10", "EVAL_TYPE_ERROR"),
            ("k11", "20"),
            ("k12", "['absent', undef, 3]"),
            ("k13", "EVAL_TYPE_ERROR"),
        ],
    );
}

#[test]
fn rebinding() {
    check(
        "rebinding",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  when node 'web01' { rebind 'a' }\n  rebind 'nothing'\n  bind alias 'b' as 'b2'\n  bind renamed 'c' as 'c2'\n  bind alias 'absent' as 'absent2'\n  when node 'web01' { rebind abstract 'd' }\n}\n",
            ),
            (
                "bindings/low.pp",
                "bindings low {\n  bind 'a' to 'low'\n  when data_center 'ams' { bind 'a' to 'low, ams' }\n  bind 'b' to 'b'\n  bind 'c' to 'c'\n  bind 'd' to 'd'\n}\n",
            ),
        ],
        &[
            // The original producer, as it would win without the rebind.
            ("a", "'low, ams'"),
            ("nothing", "KEY_NOT_FOUND"),
            ("b", "'b'"),
            ("b2", "'b'"),
            // Renamed: the old name is erased, the new one reads it.
            ("c", "not found"),
            ("c2", "'c'"),
            ("absent2", "KEY_NOT_FOUND"),
            ("d", "ABSTRACT_NOT_OVERRIDDEN"),
        ],
    );
}

#[test]
fn array_multibind_options() {
    check(
        "array_multibinds",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  multibind Array[Data], 'plain'\n  bind to [1, 2] in 'plain'\n  bind to 3 in 'plain'\n  multibind Array[Data], 'flat' { flatten => true, uniq => true }\n  bind to [1, [2, [3]]] in 'flat'\n  bind to [[1], 3] in 'flat'\n  multibind Array[Data], 'one_level' { flatten => 1 }\n  bind to [[1, [2]]] in 'one_level'\n  multibind Array[String], 'named' { priority_on_named => true }\n  bind 'x' to 'first' in 'named'\n  when data_center 'ams' { bind 'x' to 'second' in 'named' }\n  bind 'y' to 'third' in 'named'\n  multibind Array[Data], 'named_tie'\n  bind 'n' to 1 in 'named_tie'\n  bind 'n' to 2 in 'named_tie'\n  multibind Array[Data], 'named_all' { priority_on_named => false }\n  bind 'n' to 1 in 'named_all'\n  bind 'n' to 2 in 'named_all'\n  multibind Array[String], 'unnamed' { priority_on_unnamed => true }\n  bind to 'first' in 'unnamed'\n  when data_center 'ams' { bind to 'second' in 'unnamed' }\n  multibind Array[String], 'unnamed_tie' { priority_on_unnamed => true }\n  bind to 'first' in 'unnamed_tie'\n  bind to 'second' in 'unnamed_tie'\n  multibind Array[Integer], 'typed'\n  bind to 'not a number' in 'typed'\n  multibind Array[Data], 'combined' { combinator => |$memo, $x| { $memo + [$x * 10] } }\n  bind to 1 in 'combined'\n  bind to 2 in 'combined'\n}\n",
            ),
            (
                "bindings/low.pp",
                "bindings low {\n  bind to 'low' in 'plain'\n  when data_center 'ams' { bind to 'ams' in 'plain' }\n}\n",
            ),
        ],
        &[
            // Higher layer first, then higher precedence, then document order (D14).
            ("plain", "[1, 2, 3, 'ams', 'low']"),
            ("flat", "[1, 2, 3]"),
            ("one_level", "[1, [2]]"),
            // D18: of one name, the highest rank wins; two of equal rank are an error.
            ("named", "['second', 'third']"),
            ("named_tie", "MULTIBIND_CONTRIBUTION"),
            ("named_all", "[1, 2]"),
            ("unnamed", "['second']"),
            ("unnamed_tie", "MULTIBIND_CONTRIBUTION"),
            ("typed", "INCOMPATIBLE_TYPE"),
            ("combined", "[10, 20]"),
        ],
    );
}

#[test]
fn hash_multibind_options() {
    check(
        "hash_multibinds",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  multibind Hash[String, Data], 'priority'\n  bind 'k' to 'common' in 'priority'\n  when data_center 'ams' { bind 'k' to 'ams' in 'priority' }\n  multibind Hash[String, Data], 'same' \n  bind 'k' to 1 in 'same'\n  bind 'k' to 2 in 'same'\n  multibind Hash[String, Data], 'ignore' { conflict_resolution => ignore }\n  bind 'k' to 1 in 'ignore'\n  bind 'k' to 2 in 'ignore'\n  multibind Hash[String, Data], 'error' { conflict_resolution => error }\n  bind 'k' to 1 in 'error'\n  when data_center 'ams' { bind 'k' to 2 in 'error' }\n  multibind Hash[String, Data], 'append' { conflict_resolution => append, uniq => true }\n  bind 'k' to [1, 2] in 'append'\n  bind 'k' to 2 in 'append'\n  bind 'k' to 3 in 'append'\n  multibind Hash[String, Data], 'append_one' { conflict_resolution => append }\n  bind 'k' to 'v' in 'append_one'\n  multibind Hash[String, Data], 'append_arrays' { conflict_resolution => append }\n  bind 'k' to ['a'] in 'append_arrays'\n  bind 'k' to ['b', 'c'] in 'append_arrays'\n  multibind Hash[String, Data], 'append_flat' { conflict_resolution => append, flatten => true }\n  bind 'k' to ['a'] in 'append_flat'\n  bind 'k' to ['b', 'c'] in 'append_flat'\n  multibind Hash[String, Data], 'merge' { conflict_resolution => merge }\n  bind 'k' to { 'a' => 1 } in 'merge'\n  bind 'k' to { 'a' => 2, 'b' => 2 } in 'merge'\n  multibind Hash[String, Data], 'outer'\n  multibind Hash[String, Data], 'inner'\n  bind 'x' to 1 in 'inner'\n  bind 'inner' to lookup('inner') in 'outer'\n  bind 'y' to 2 in 'outer'\n  multibind Hash[String, Integer], 'typed'\n  bind 'k' to 'text' in 'typed'\n}\n",
            ),
            ("bindings/low.pp", "bindings low {\n  bind 'k' to 'low' in 'priority'\n  bind 'other' to 'low' in 'priority'\n}\n"),
        ],
        &[
            ("priority", "{'k' => 'ams', 'other' => 'low'}"),
            ("same", "MULTIBIND_CONTRIBUTION"),
            ("ignore", "{'k' => 1}"),
            ("error", "MULTIBIND_CONTRIBUTION"),
            // D18: each value is one element (an array too); only `flatten` splices.
            ("append", "{'k' => [[1, 2], 2, 3]}"),
            ("append_one", "{'k' => ['v']}"),
            ("append_arrays", "{'k' => [['a'], ['b', 'c']]}"),
            ("append_flat", "{'k' => ['a', 'b', 'c']}"),
            ("merge", "{'k' => {'a' => 1, 'b' => 2}}"),
            ("outer", "{'inner' => {'x' => 1}, 'y' => 2}"),
            ("typed", "INCOMPATIBLE_TYPE"),
        ],
    );
}

#[test]
fn classes_are_includes_minus_excludes() {
    check(
        "classes",
        &[
            (
                "bindings/high.pp",
                "bindings high {\n  include [web, base]\n  exclude legacy\n  when data_center 'ams' { include monitoring }\n}\n",
            ),
            (
                "bindings/low.pp",
                "bindings low {\n  include legacy\n  exclude web\n  when node 'web01' { exclude base }\n}\n",
            ),
        ],
        // `web` is included higher than it is excluded; `base` too (a higher layer beats a
        // more specific lower exclude); `legacy` is excluded higher than it is included.
        // D14 orders contributions by layer, then precedence: `monitoring` comes first.
        &[("/classes", "['monitoring', 'web', 'base']")],
    );
}

/// Nodes that share one index (`--nodes`, `pbc diff`) share the values no request can change,
/// and each still gets its own answers wherever a `when`, a fact or a lookup decides: the
/// answers on the shared index, node after node, are those of each node alone.
#[test]
fn nodes_sharing_an_index_get_their_own_answers() {
    let root = tree(
        "shared_index",
        &[(
            "bindings/high.pp",
            "bindings high {\n  bind 'constant' to { 'a' => [1, 2] }\n  bind 'greeting' to \"hello ${::fqdn}\"\n  bind 'by_dc' to 'default'\n  when data_center 'ams' { bind 'by_dc' to 'amsterdam' }\n  bind 'via' to lookup('by_dc')\n  bind Integer, 'wrong' to 'text'\n  multibind Array[String], 'plain'\n  bind to 'x' in 'plain'\n  bind to ['y'] in 'plain'\n  multibind Array[String], 'some'\n  bind to 'a' in 'some'\n  when data_center 'ams' { bind to 'b' in 'some' }\n  multibind Array[String], 'facts'\n  bind to 'a' in 'facts'\n  bind to $::fqdn in 'facts'\n  multibind Hash[String, Integer], 'typed'\n  bind 'k' to 'text' in 'typed'\n}\n",
        )],
    );
    let keys = [
        "constant", "greeting", "by_dc", "via", "wrong", "plain", "some", "facts", "typed",
    ];
    let requests: Vec<Request> = [("web01", "AMS"), ("db02", "FRA"), ("web01", "AMS")]
        .iter()
        .map(|(fqdn, dc)| {
            let mut request = Request::default();
            request.facts.insert("fqdn".into(), Value::string(*fqdn));
            request.facts.insert("dc".into(), Value::string(*dc));
            request
        })
        .collect();
    let (environment, loaded) = prepared(&root, &requests[0]);
    let model = loaded.tree_model(ForInjection);
    let index = std::sync::Arc::new(puppet_bindings::compose::Bindings::build(
        &model.layers.layers,
    ));
    let mut seen = Vec::new();
    for request in &requests {
        let environment =
            environment::select(&root, None, request, &Default::default()).expect("selects");
        let mut shared = Injector::with_index(&model, Some(index.clone()), &environment, request)
            .expect("builds");
        let mut alone = Injector::new(&model, &environment, request).expect("builds");
        let got = answers(&mut shared, &keys);
        assert_eq!(got, answers(&mut alone, &keys), "{:?}", request.facts);
        seen.push(got);
    }
    drop(environment);
    assert_eq!(
        seen[0],
        [
            "{'a' => [1, 2]}",
            "'hello web01'",
            "'amsterdam'",
            "'amsterdam'",
            "INCOMPATIBLE_TYPE",
            "['x', 'y']",
            "['b', 'a']",
            "['a', 'web01']",
            "INCOMPATIBLE_TYPE",
        ]
    );
    assert_eq!(seen[1][1..4], ["'hello db02'", "'default'", "'default'"]);
    assert_eq!(seen[1][6..8], ["['a']", "['a', 'db02']"]);
    assert_eq!(seen[0], seen[2]);
}

/// `bind parameters` and `bind map` bind their keys, but only Puppet's catalog can produce
/// them: a lookup says which of the two the key comes from.
#[test]
fn bindings_only_the_catalog_produces_say_which_they_are() {
    let root = tree(
        "runtime_only",
        &[(
            "bindings/high.pp",
            "bindings high {\n  bind parameters Web[one] to Sql[one] {\n    map => { dbuser => user },\n  }\n  bind map Web to Sql {\n    key_in_web => key_in_sql,\n  }\n}\n",
        )],
    );
    let request = Request::default();
    let (environment, loaded) = prepared(&root, &request);
    let model = loaded.tree_model(ForInjection);
    let mut injector = Injector::new(&model, &environment, &request)
        .unwrap_or_else(|d| panic!("{}: {}", d.code, d.message));
    let keys = injector.effective_keys();
    let mut message = |name: &str| -> String {
        let key = keys
            .iter()
            .find(|k| k.name.starts_with(name))
            .unwrap_or_else(|| panic!("no key {name}... among {keys:?}"));
        match injector.lookup(&key.name, &PType::Data) {
            Err(d) => format!("{}: {}", d.code, d.message),
            Ok(v) => panic!("{name}: {v:?}"),
        }
    };
    let parameters = message("/param/");
    assert!(
        parameters.starts_with("NEEDS_RUNTIME: ")
            && parameters.ends_with(
                "comes from `bind parameters ... to a resource`, which needs Puppet's catalog"
            ),
        "{parameters}"
    );
    let map = message("/map/");
    assert!(
        map.starts_with("NEEDS_RUNTIME: ")
            && map.ends_with("comes from `bind map`, which needs Puppet's catalog"),
        "{map}"
    );
}
