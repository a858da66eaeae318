$sum = $a +
$b +
      $c
Package['a']
-> Service['b']
~> Exec['c']
$list.map |$x| {
$x * 2
}.filter |$y| {
$y > 2
}
if $a and
$b {
notice(1)
}
