class x::y(Optional[String] $a = undef, Hash $b = {}, $c = [1,2]) inherits x {
  include stdlib
  contain foo, bar
  require baz
  realize(File[a])
}
