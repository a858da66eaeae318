class a { }
class b($x) { 1 }
define c { file { "x": } }
