use super::*;

fn formatted(src: &str) -> String {
    match format_source(FileId(0), src) {
        Formatted::Text(text) => text,
        other => panic!("{other:?}"),
    }
}

/// Lines are indented two spaces per open bracket, whatever they were.
#[test]
fn lines_are_indented_by_their_brackets() {
    assert_eq!(
        formatted("class a {\nfile { '/x':\n        ensure => file,\n}\n    }\n"),
        "class a {\n  file { '/x':\n    ensure => file,\n  }\n}\n"
    );
}

/// A heredoc's text and its end line are left as written, wherever its tag stands.
#[test]
fn heredocs_are_left_as_written() {
    let src = "class a {\n      $x = @(END)\n    body # not a comment\n\t  more\n    | END\n        $y = 1\n}\n";
    assert_eq!(
        formatted(src),
        "class a {\n  $x = @(END)\n    body # not a comment\n\t  more\n    | END\n  $y = 1\n}\n"
    );
}

/// A heredoc whose end line says `|-` ends its text before its last line end, and blanks at
/// the end of that line are the text's own: they stay (the fuzzer found them trimmed, which
/// changed the program, so the file was refused).
#[test]
fn blanks_that_end_a_trimmed_heredoc_stay() {
    for src in [
        "$j = @(J)\nx  \n|-J\n",
        "$j = @(J)\n  x \t\n  |-J\n",
        "class m {\n      $j = @(\"J\"/L)\n?  x  \n  |-J\n  notice($j)\n}\n",
    ] {
        let once = formatted(src);
        assert!(
            once.contains("x  \n") || once.contains("x \t\n"),
            "{src:?} became {once:?}"
        );
        assert_eq!(formatted(&once), once, "{src:?}");
    }
}

/// Formatting what was formatted changes nothing.
#[test]
fn formatting_twice_is_formatting_once() {
    let src = "class a(\n$x = 1,\n  $y = {'a'=>1,\n'bb' => 2},\n) {\n\n\n\n  if $x and\n$y { notice($x) }   \n}\n";
    let once = formatted(src);
    assert_eq!(formatted(&once), once);
}

/// The refusal: a text that does not parse to the program given.
#[test]
fn a_changed_program_is_refused() {
    let before = crate::parser::parse_file(FileId(0), "$a = 1\n")
        .program
        .expect("parses");
    let pn = crate::pn::program_to_json(&before);
    assert!(meaning_kept(FileId(0), &pn, "$a = 1\n").is_none());
    let refused = meaning_kept(FileId(0), &pn, "$a = 2\n").expect("refused");
    assert_eq!(refused.code, codes::FORMAT_CHANGED_MEANING);
}

/// A file written with `\r\n` keeps them, its last line end too; a comment's line keeps its own.
#[test]
fn crlf_line_ends_are_kept() {
    assert_eq!(
        formatted("class a {\r\n# c\r\nfile { '/x':\r\nensure => file,\r\n}\r\n}"),
        "class a {\r\n  # c\r\n  file { '/x':\r\n    ensure => file,\r\n  }\r\n}\r\n"
    );
}

/// A carriage return that ends no line is a blank, as Puppet's lexer reads it: taken off where
/// blanks are, one space where they stay, and the layout of the result is the result (the
/// fuzzer's `fmt` target found `\r` laid out as `\r\n`, then as nothing).
#[test]
fn a_lone_carriage_return_is_a_blank() {
    for (src, laid_out) in [
        ("\r", ""),
        ("\r\r", ""),
        (" \r\n", ""),
        ("$a = 1\r", "$a = 1\n"),
        ("$a\r=\r1 \r# c\n", "$a = 1 # c\n"),
        ("\r$a = 1\n", "$a = 1\n"),
        // Between two tokens, as any blank there: none before a closing bracket, one space
        // between two names.
        ("$b = [3,\r ]\n", "$b = [3,]\n"),
        // (Each line keeps the line end it had.)
        (
            "$a = 1\r\n$b = [3,\r ]\n2 oc\nei\rnt($a)\r\n",
            "$a = 1\r\n$b = [3,]\n2 oc\nei nt($a)\r\n",
        ),
    ] {
        let once = formatted(src);
        assert_eq!(once, laid_out, "{src:?}");
        assert_eq!(formatted(&once), once, "{src:?} laid out again");
    }
}

/// A line past the width breaks at its outermost bracket that ends past it: one entry to a
/// line, a comma after the last, the arrows aligned; a resource's title stays on the `{` line.
#[test]
fn long_lines_break_at_their_outermost_bracket() {
    let long = "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'";
    let src = format!(
        "class a {{\n  file {{ '/x': ensure => file, content => {long}, source => {long} }}\n  $h = {{ 'k' => {long}, 'kk' => [{long}, {long}] }}\n}}\n"
    );
    assert_eq!(
        formatted(&src),
        format!(
            "class a {{\n  file {{ '/x':\n    ensure  => file,\n    content => {long},\n    source  => {long},\n  }}\n  $h = {{\n    'k'  => {long},\n    'kk' => [{long}, {long}],\n  }}\n}}\n"
        )
    );
}

/// A call whose only argument is an array or a hash breaks inside it, the brackets together.
#[test]
fn a_lone_bracket_argument_is_broken_inside() {
    let entries = (0..12)
        .map(|i| format!("'package-{i}'"))
        .collect::<Vec<_>>();
    let src = format!("ensure_packages([{}])\n", entries.join(", "));
    let lines: Vec<String> = entries.iter().map(|e| format!("  {e},\n")).collect();
    assert_eq!(
        formatted(&src),
        format!("ensure_packages([\n{}])\n", lines.concat())
    );
}

/// Puppet's grammar has no trailing comma for a method's arguments or a type's parameters:
/// none is added there, though the lines break.
#[test]
fn no_comma_is_added_where_puppet_has_none() {
    let long = "'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'";
    let src = format!("$y = $x.join({long}, {long})\n");
    assert_eq!(
        formatted(&src),
        format!("$y = $x.join(\n  {long},\n  {long}\n)\n")
    );
    let types = (0..14).map(|i| format!("Enum['v{i}']")).collect::<Vec<_>>();
    let src = format!("class a (Variant[{}] $x) {{}}\n", types.join(", "));
    let laid = formatted(&src);
    assert!(
        laid.starts_with("class a (\n  Variant[\n    Enum['v0'],\n"),
        "{laid}"
    );
    // One parameter: a list of one entry gets no comma.
    assert!(laid.ends_with("    Enum['v13']\n  ] $x\n) {}\n"), "{laid}");
}

/// What cannot be broken stays as it is: a string, a comment at the end of a line, a line with
/// a heredoc's tag (its text starts on the next line); and a bracket with one entry that would
/// not fit on a line of its own either.
#[test]
fn what_cannot_be_broken_stays() {
    let long = "x".repeat(150);
    for src in [
        format!("fail('{long}')\n"),
        format!("notice(1) # {long}\n"),
        format!("$a = foo('{long}', @(END))\n  text\n  | END\n"),
    ] {
        assert_eq!(formatted(&src), src);
    }
}

/// The wrapped layout is stable, and a line of many thousands of entries takes one round.
#[test]
fn wrapping_is_idempotent() {
    let src = format!(
        "$a = [{}]\n$b = {{ 'k' => [[{}]] }}\n",
        vec!["1"; 20_000].join(", "),
        vec!["'v'"; 60].join(", ")
    );
    let once = formatted(&src);
    assert_eq!(once.lines().count(), (20_000 + 2) + (60 + 4));
    assert_eq!(formatted(&once), once);
}

/// A file written with `\r\n` gets them in the lines a long line breaks into, and a
/// selector written without braces ends no list with a comma.
#[test]
fn broken_lines_keep_the_files_line_ends() {
    let long = "'cccccccccccccccccccccccccccccccccccccccccccccccccccccccc'";
    assert_eq!(
        formatted(&format!("$a = [{long}, {long}, {long}]\r\n")),
        format!("$a = [\r\n  {long},\r\n  {long},\r\n  {long},\r\n]\r\n")
    );
    let src = "$b = foo(\n  $c ? 'x' => 1\n)\n";
    assert_eq!(formatted(src), src);
}

/// A relationship arrow at the end of a line moves to the start of the next, its comments
/// staying on their lines, unless a heredoc stands next to it.
#[test]
fn relationship_arrows_stand_on_their_right_operands_line() {
    assert_eq!(
        formatted("A['a'] ->\nB['b'] ~>   \n\n  C['c'] ->\n# why\nD['d']\n"),
        "A['a']\n  -> B['b']\n\n  ~> C['c']\n  # why\n  -> D['d']\n"
    );
    assert_eq!(
        formatted("A['a'] -> # first\nB['b']\n"),
        "A['a'] # first\n  -> B['b']\n"
    );
    for src in [
        "A['a']\n  -> B['b']\n",
        "notify { 'x': message => @(END) } ->\n  text\n  | END\nB['b']\n",
    ] {
        assert_eq!(formatted(src), src);
    }
}

/// Aligning parameters' `=`s never takes a line past the width: the parameter whose name
/// stands furthest right keeps one space before its `=` when another's line would pass the
/// width with it, and the others align without it; a line past the width as it is stays out.
/// Arrows align however far.
#[test]
fn alignment_stops_short_of_the_width() {
    let long_type = format!("Pattern[/{}/]", "a".repeat(100));
    let long_default = format!("'{}'", "y".repeat(30));
    let src = format!(
        "class a (\n  {long_type} $server = 'x',\n  String $options = {long_default},\n  $b = 1,\n) {{\n}}\n"
    );
    assert_eq!(
        formatted(&src),
        format!(
            "class a (\n  {long_type} $server = 'x',\n  String $options = {long_default},\n  $b              = 1,\n) {{\n}}\n"
        )
    );
    // Every line fits aligned: all align, however far.
    let src = format!("class a (\n  {long_type} $server = 'x',\n  $b = 1,\n) {{\n}}\n");
    let padding = " ".repeat(long_type.len() + " $server".len() - "$b".len());
    assert_eq!(
        formatted(&src),
        format!("class a (\n  {long_type} $server = 'x',\n  $b{padding} = 1,\n) {{\n}}\n")
    );
    // A parameter's line past the width as it is stays out.
    let very_long_type = format!("Pattern[/{}/]", "a".repeat(150));
    let src =
        format!("class a (\n  {very_long_type} $server = 'x',\n  $b = 1,\n  $cc = 2,\n) {{\n}}\n");
    assert_eq!(
        formatted(&src),
        format!("class a (\n  {very_long_type} $server = 'x',\n  $b  = 1,\n  $cc = 2,\n) {{\n}}\n")
    );
    // Arrows align however long their lines get (puppet-lint's `arrow_alignment` asks it).
    let long_key = format!("'{}'", "k".repeat(140));
    let src = format!("$h = {{\n  {long_key} => 'a',\n  'b' => 1,\n}}\n");
    let padding = " ".repeat(long_key.len() - "'b'".len());
    assert_eq!(
        formatted(&src),
        format!("$h = {{\n  {long_key} => 'a',\n  'b'{padding} => 1,\n}}\n")
    );
}
