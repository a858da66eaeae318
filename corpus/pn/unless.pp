unless $x { 1 } else { 2 }
unless $y {}
