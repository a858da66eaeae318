# D1: the bindings words are ordinary names outside `bindings`/`site` bodies.
$bind = 1
$x = map([1, 2]) |$v| { $v }
notify { 'alias': alias => 'to', tag => 'when' }
$h = { bind => 1, to => 2, as => 3, when => 4 }
class site::profile($multibind = true, $layer = 1) { }
$y = $list.map |$i| { $i }
include site
