$x.each |$y| { {a => 1} }
