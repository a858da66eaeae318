if $x { 1 } else { 2 }
$y = 1
