$x = $y.map |$a, $b| >> Integer { $a }
$z = foo() |$q| { }
bar.baz
$x[1,2]["a"]
!$x and -$y or *$z
