$x.each |*$a, $b| { 1 }
