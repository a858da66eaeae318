define a($x, $x) {}
