$a = 1 + 2 * 3 - 4 / 5 % 6
$b = 1 < 2 == true
$c = !$a == $b and $x in $y or $z =~ /re/ and $w !~ /x/
$d = -$x[1]
$e = 1 << 2 + 3
$f = true and 1+2 ? 3 => yes
$g = $a ? {1=>2} == 3
$h = $x ? { /^a/ => "A", default => undef, }
$i = [1, -2.5, 0x1F, 017, 1e3, 1.5e20, 1.5e-3]
$j = [1][0]
$k = {a => 1, 'b' => [2, 3], }[a]
$l = *$m
$n = - -1
$o = $a = $b = 1
$p = "${facts["os"]["name"]}-$v ${x + 1} ${true} ${0x10} $x[1] $$y a$"
$q = $x.foo.bar(1).baz |$v| { $v }
$r = foo(a => 1, b => 2, 3)
$s = [1, a => 2, b => 3, 4]
$t = $list.map |$i, $v| { $v * 2 }.join(",")
$u = Integer[1, 65535]
$v = type(1)
$w = [type, function]
$x = { type => 1, function => 2, default => 3, undef => 4 }
$y = $z.type
$aa = if $a {1} else {2}
$bb = case $x { 1, 2: { a } default: {} }
$cc = unless $a { 1 }
$dd = $b /2/ 1
