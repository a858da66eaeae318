//! The evaluator on small programs: each case is Puppet source (statements; the value of the
//! last one is the result) and the result in Puppet's notation, or the error code expected.

use puppet_bindings::eval::{Evaluator, NoInjection, TopScope, Value};
use puppet_bindings::span::FileId;

fn top() -> TopScope {
    let mut top = TopScope::default();
    let facts: serde_json::Value = serde_json::json!({
        "fqdn": "web01.ams.example.com",
        "os": {"family": "Debian", "release": {"major": "12"}},
        "memory_mb": 2048,
        "interfaces": ["eth0", "lo"]
    });
    for (k, v) in facts.as_object().expect("object") {
        top.set(k.as_str(), Value::from_json(v));
    }
    top.set("facts", Value::from_json(&facts));
    top
}

fn run(src: &str, strict: bool) -> Result<String, String> {
    let parsed = puppet_bindings::parse_file(FileId(0), src);
    let program = parsed
        .program
        .unwrap_or_else(|| panic!("{src}: {:?}", parsed.diagnostics));
    let top = top();
    let mut host = NoInjection::default();
    let mut ev = Evaluator::new(&top, &mut host).strict(strict);
    let mut last = Value::Undef;
    for s in &program.body {
        match ev.eval(s) {
            Ok(v) => last = v,
            Err(e) => return Err(e.code.to_string()),
        }
    }
    Ok(last.to_string())
}

#[test]
fn expressions_evaluate_as_puppet_does() {
    let cases: &[(&str, &str)] = &[
        ("1 + 2 * 3 - 4", "3"),
        ("7 / 2", "3"),
        ("7.0 / 2", "3.5"),
        ("7 % 3", "1"),
        ("'10' + 5", "15"),
        ("[1, 2] + [3]", "[1, 2, 3]"),
        ("[1, 2] << [3]", "[1, 2, [3]]"),
        ("[1, 2, 3] - [2]", "[1, 3]"),
        ("{'a' => 1} + {'b' => 2}", "{'a' => 1, 'b' => 2}"),
        ("'Abc' == 'aBC'", "true"),
        ("1 == 1.0", "true"),
        ("{'a' => 'X', 'b' => 1} == {'b' => 1.0, 'a' => 'x'}", "true"),
        ("{'a' => 1} == {'A' => 1}", "false"),
        ("'b' > 'A'", "true"),
        ("'eth0' in $interfaces", "true"),
        ("'ams' in $fqdn", "true"),
        ("'a' in {'a' => 1}", "true"),
        ("!true or 1 < 2 and 3 >= 4", "false"),
        ("\"${fqdn} has ${memory_mb} MB\"", "'web01.ams.example.com has 2048 MB'"),
        ("\"${facts['os']['family']}/${::os['release']['major']}\"", "'Debian/12'"),
        ("\"${[1, 'a']}\"", "'[1, \\'a\\']'"),
        ("$interfaces[-1]", "'lo'"),
        ("[1, 2, 3, 4][1, 2]", "[2, 3]"),
        ("'hello'[1, 3]", "'ell'"),
        ("$nope", "undef"),
        ("if $fqdn =~ /^(\\w+)\\.(\\w+)\\./ { \"${2}-${1}\" } else { 'no' }", "'ams-web01'"),
        ("$fqdn ? { /^db/ => 'db', /^web/ => 'web', default => 'other' }", "'web'"),
        ("case $os['family'] { 'RedHat': { 'rpm' } 'Debian', 'Ubuntu': { 'deb' } default: { 'x' } }", "'deb'"),
        ("unless $memory_mb > 4096 { 'small' }", "'small'"),
        ("$x = 3\n$y = $x * 2\n$y", "6"),
        ("1 =~ Integer", "true"),
        ("[1, 'a'] =~ Array[Integer]", "false"),
        ("Array[String]", "Array[String]"),
        ("flatten([1, [2, [3]]])", "[1, 2, 3]"),
        ("join(['a', 'b'], ',')", "'a,b'"),
        ("split('a,b,,c', ',')", "['a', 'b', '', 'c']"),
        ("concat([1], 2, [3])", "[1, 2, 3]"),
        ("merge({'a' => 1}, {'a' => 2, 'b' => 3})", "{'a' => 2, 'b' => 3}"),
        ("keys({'a' => 1, 'b' => 2})", "['a', 'b']"),
        ("values({'a' => 1, 'b' => 2})", "[1, 2]"),
        ("size([1, 2]) + length('abc')", "5"),
        ("empty('') and empty([]) and !empty({'a' => 1})", "true"),
        ("sort(['b', 'C', 'a'])", "['a', 'b', 'C']"),
        ("unique([1, 2, 1])", "[1, 2]"),
        ("\"${upcase('a')}${downcase('B')}${capitalize('cd')}${strip('  e ')}\"", "'AbCde'"),
        ("regsubst('web01.example.com', '^(\\w+)\\..*$', '\\1')", "'web01'"),
        ("regsubst('a-b-c', '-', '_', 'G')", "'a_b_c'"),
        ("sprintf('%s:%05d|%-4s|%.2f|%x', 'port', 80, 'ab', 3.14159, 255)", "'port:00080|ab  |3.14|ff'"),
        ("with(1, 2) |$a, $b| { $a + $b }", "3"),
        ("[1, 2, 3].map |$x| { $x * 10 }", "[10, 20, 30]"),
        ("{'a' => 1, 'b' => 2}.filter |$k, $v| { $v > 1 }", "{'b' => 2}"),
        ("[1, 2, 3].reduce |$memo, $x| { $memo + $x }", "6"),
        ("[1, 2].reduce(10) |$memo, $x| { $memo + $x }", "13"),
        ("[1, 2].each |$x| { $x }", "[1, 2]"),
        ("defined('$fqdn') and !defined('$nope') and defined('join')", "true"),
        ("[*[1, 2], 3]", "[1, 2, 3]"),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        match run(src, false) {
            Ok(got) if got == *want => {}
            other => failures.push(format!("{src}\n  want {want}\n  got  {other:?}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn errors_have_codes() {
    let cases: &[(&str, &str, bool)] = &[
        ("1 + 'a'", "EVAL_TYPE_ERROR", false),
        ("'a' + 'b'", "EVAL_TYPE_ERROR", false),
        ("1 / 0", "EVAL_TYPE_ERROR", false),
        ("9223372036854775807 + 1", "EVAL_TYPE_ERROR", false),
        ("undef[1]", "EVAL_TYPE_ERROR", false),
        ("join(1)", "EVAL_TYPE_ERROR", false),
        ("upcase()", "EVAL_TYPE_ERROR", false),
        ("[1].map |$a, $b, $c| { 1 }", "EVAL_TYPE_ERROR", false),
        ("jion(['a'])", "UNKNOWN_FUNCTION", false),
        ("$nope", "UNDEFINED_VARIABLE", true),
        ("fail('stop here')", "EVAL_FAILED", false),
        ("'x' ? { 'y' => 1 }", "EVAL_NO_MATCH", false),
        ("file { '/tmp/x': }", "NOT_EVALUABLE", false),
        ("lookup('x')", "INJECTION_BEFORE_INJECTOR", false),
        ("$x = 1\n$x = 2", "EVAL_TYPE_ERROR", false),
        ("'a' =~ /(?<=a)b/", "EVAL_TYPE_ERROR", false),
        // Widths and precisions that would allocate gigabytes, or overflow, are limits.
        (
            "sprintf('%18446744073709551615s', 'a')",
            "EVAL_LIMIT",
            false,
        ),
        (
            "sprintf('%123456789012345678901234s', 'a')",
            "EVAL_LIMIT",
            false,
        ),
        ("sprintf('%.10000000000f', 1.5)", "EVAL_LIMIT", false),
        ("sprintf('%10000000000s', 'a')", "EVAL_LIMIT", false),
        // JSON has no Infinity: a Float out of range is an error where it arises.
        ("1.0e308 * 10", "EVAL_TYPE_ERROR", false),
    ];
    let mut failures = Vec::new();
    for (src, want, strict) in cases {
        match run(src, *strict) {
            Err(code) if code == *want => {}
            other => failures.push(format!("{src}\n  want {want}\n  got  {other:?}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// An endless computation stops at the step budget instead of hanging.
#[test]
fn evaluation_is_bounded() {
    let src = "$a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n$a.map |$x| { $a.map |$y| { $a.map |$z| { $a.map |$w| { $a.map |$v| { $a.map |$u| { $x + $y + $z } } } } } }";
    assert_eq!(run(src, false), Err("EVAL_LIMIT".to_string()));
}

/// Every statement of every manifest in `corpus/` evaluates to a value or a coded error, never
/// a panic or a hang (each with a small step budget).
#[test]
fn every_corpus_statement_evaluates_or_errs() {
    let paths = puppet_bindings::source::expand_paths(
        &[std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus"
        ))],
        &Default::default(),
    )
    .expect("corpus");
    let top = top();
    let mut evaluated = 0;
    for path in &paths {
        let Ok(src) = std::fs::read_to_string(path) else {
            continue;
        };
        let Some(program) = puppet_bindings::parse_file(FileId(0), &src).program else {
            continue;
        };
        let mut host = NoInjection::default();
        let mut ev = Evaluator::new(&top, &mut host).with_budget(10_000);
        for s in &program.body {
            if let Err(e) = ev.eval(s) {
                assert!(
                    !e.code.is_empty() && !e.message.is_empty(),
                    "{}",
                    path.display()
                );
            }
            evaluated += 1;
        }
    }
    assert!(evaluated > 300, "only {evaluated} statements");
}

/// Values that double at each step, or a collection copied again at each step, stop at the
/// budget of what one evaluation may build (they reached gigabytes, or took minutes).
#[test]
fn building_values_is_bounded() {
    let list = |n: usize| {
        (1..=n)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for src in [
        format!(
            "[{}].reduce('x') |$memo, $x| {{ \"${{memo}}${{memo}}\" }}",
            list(40)
        ),
        format!(
            "[{}].reduce(['x']) |$memo, $x| {{ $memo + $memo }}",
            list(40)
        ),
        // 20,000 appends, each copying what came before (the memo is read twice, so it cannot
        // be extended in place): 6 GB of copies.
        format!(
            "[{}].reduce([]) |$memo, $x| {{ if $memo == undef {{ [] }} else {{ $memo << $x }} }}",
            list(20_000)
        ),
    ] {
        assert_eq!(
            run(&src, false),
            Err("EVAL_LIMIT".to_string()),
            "{}",
            &src[..60]
        );
    }
    // Ordinary work is far below it.
    assert_eq!(
        run(
            "[1, 2, 3].reduce([]) |$memo, $x| { $memo << $x * 2 }",
            false
        ),
        Ok("[2, 4, 6]".to_string())
    );
}

/// `<<` and `+` extend a lambda's parameter in place when the body reads it once; a value that
/// is read again, or held elsewhere, is never changed.
#[test]
fn values_extended_in_place_are_never_seen_changed() {
    for (src, expected) in [
        // Read twice: the first result must not change the memo the second read sees.
        (
            "[1, 2].reduce([]) |$m, $x| { $y = $m << $x; $m + [$x * 10] }",
            "[10, 20]",
        ),
        // The start value belongs to `$start`, which is read after the reduce.
        (
            "$start = [0]\n$r = [1, 2].reduce($start) |$m, $x| { $m << $x }\n[$start, $r]",
            "[[0], [0, 1, 2]]",
        ),
        (
            "$start = {'a' => 1}\n$r = ['b', 'c'].reduce($start) |$m, $x| { $m + { $x => 2 } }\n[$start, $r]",
            "[{'a' => 1}, {'a' => 1, 'b' => 2, 'c' => 2}]",
        ),
        // Read once, but inside a nested lambda that runs for each element.
        (
            "[1, 2].reduce([]) |$m, $x| { [1, 2].map |$i| { $m << $i } }",
            "[[[1], [2], 1], [[1], [2], 2]]",
        ),
        // `defined` reads a variable by name.
        (
            "[1, 2].reduce([]) |$m, $x| { [$m << $x, defined('$m')] }",
            "[[[1], true, 2], true]",
        ),
        // An element of the memo shared with it is not changed either.
        (
            "$a = [1]\n$r = [$a].reduce([]) |$m, $x| { $m + [$x << 2] }\n[$a, $r]",
            "[[1], [[1, 2]]]",
        ),
        ("[1, 2, 3].reduce([]) |$m, $x| { $m << $x }", "[1, 2, 3]"),
        ("[1, 2, 3].reduce([]) |$m, $x| { $m + [$x] + $x }", "[1, 1, 2, 2, 3, 3]"),
    ] {
        assert_eq!(run(src, false), Ok(expected.to_string()), "{src}");
    }
}

/// A value of 2^40 shared elements, or 10,000 levels deep, is refused before anything walks it
/// (printing such a value never ended; a type check on one 10,000 deep took seconds).
#[test]
fn produced_values_are_bounded() {
    let shared = (0..40).fold("$a0 = ['x']".to_string(), |src, i| {
        format!("{src}\n$a{} = [$a{i}, $a{i}]", i + 1)
    });
    let program = puppet_bindings::parse_file(FileId(0), &shared)
        .program
        .expect("parses");
    let top = top();
    let mut host = NoInjection::default();
    let mut ev = Evaluator::new(&top, &mut host);
    let mut last = Value::Undef;
    for s in &program.body {
        last = ev.eval(s).expect("builds by sharing");
    }
    assert!(last.within_bounds().is_err());
    let mut deep = Value::string("x");
    for _ in 0..10_000 {
        deep = Value::array(vec![deep]);
    }
    assert!(deep.within_bounds().is_err());
    assert!(Value::array(vec![Value::Integer(1); 1000])
        .within_bounds()
        .is_ok());
    // Dropping it must not overflow the test thread's stack either.
    std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(move || drop(deep))
        .expect("thread")
        .join()
        .expect("dropped");
}
