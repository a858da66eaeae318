define a { $x }
