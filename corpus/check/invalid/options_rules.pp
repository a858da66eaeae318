bindings example {
  multibind Array[Data], 'flattened-data' as 'example' {
    combinator => |$key, $memo, $x| { $memo + flatten($x) },
    conflict_resolution => 'merge',
  }
  multibind Hash[Data], 'merged' as 'merged' {
    conflict_resolution => 'merj',
    priority_on_named   => true,
  }
  multibind Hash[Integer], 'counts' as 'counts' {
    conflict_resolution => 'append',
    flatten             => 1,
  }
  bind 'x' to 42 {
    combinater  => |$a, $b| { $a },
    singleton   => true,
    transformer => |$a, $b| { $a },
  }
  bind 'y' to producer Type[MyProducer] {
    producer_args => 42,
    singleton     => 'yes',
  }
  bind parameters Web[one] to Sql[one] {
    map => { dbuser => 'User Name' },
  }
  bind map Web to Sql {
    key_in_web => 42,
  }
  multibind Array[String], 'list' as 'list' {
    flatten => 'deep',
  }
  # A depth beyond 64 bits would be accepted and then ignored.
  multibind Array[Data], 'deep_list' {
    flatten => 99999999999999999999,
  }
}
