if $x { } elsif $y {1} else {2}
