$a = = 1
$b = 2
notice {'a' => 1}
$c = 3
if $d = 1 { }
