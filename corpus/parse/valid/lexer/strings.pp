$a = 'it''s'
$b = 'a\nb \' \\ c'
$c = "tab\tnew\nline\\ \$ \" \' \s \u0041 \u{1F600}"
$d = "line \
continued"
$e = "${ "nested ${x}" }"
$f = "${x}${y}"
$g = "$::top and ${::top} and $a::b and ${a.b} and ${h['k']}"
$h = "${ {a => 1}['a'] }"
$i = "${ $x ? { 1 => 'a', default => 'b' } }"
