$x.foo |*$a| { 1 }
