notice {a => 1}
