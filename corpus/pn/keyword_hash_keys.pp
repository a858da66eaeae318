$h = { type => 1, function => 2 }
