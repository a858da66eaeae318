# Multibinds (D14: the id defaults to the name), contributions, options.
bindings multibinds {
  multibind 'settings'
  multibind Array[String], 'users' as 'my::users' { flatten => true, uniq => true }
  multibind Hash[String, Integer], 'limits' { conflict_resolution => merge }
  multibind Array[Integer], 'numbers' {
    combinator => |$memo, $x| { $memo + $x }
  }
  bind to 'anna' in 'my::users'
  bind to ['akuna', 'ries'] in 'my::users'
  bind 'cpu' to 4 in 'limits'
  bind Integer, 'memory' to 2048 in 'limits'
  bind Type[My::Provider] in 'bindings_providers'
}
