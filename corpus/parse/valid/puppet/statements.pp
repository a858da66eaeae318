include apache
include foo include bar
notice a, b
require foo
$a = [1] [2]
foo ($x)
notice foo
(42)
if $x { } elsif $y {1} else {2}
with(1) |$x| { } -> foo {"a":}
$x = foo ($y)
foo bar
foo(1) bar(2)
$h = $x; $i = 2
if $x { file { ensure => present } }
case $x { "a": {} /b/: {} }
$x = 1 + file {"a":}
[$a, $b] = [1, 2]
