foo bar, baz
