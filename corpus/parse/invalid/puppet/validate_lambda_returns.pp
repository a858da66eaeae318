$x.each |$a| >> 1 { 1 }
