define foo($0, $x) { }
