# LISTSTART vs LBRACK, WSLPAREN vs LPAREN, SELBRACE, regex vs division.
$a = [1][0]
$b = [1] [0]
$c = $a /*c*/[0]
$d = foo(1)
bar
(2)
$e = $x ? { 1 => 2 }
$f = $g / 2 / 3
$h = /a\/b/
case $x { /x/: {} }
node /^re/ { }
$i = 10 % 3
$j = $x.foo
(1)
