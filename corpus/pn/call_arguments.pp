notice(1,)
$x = f(a => 1, b => 2, 3)
