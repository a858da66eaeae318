foo bar
