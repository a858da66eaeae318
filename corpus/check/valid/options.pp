# Every option where it applies, with values of the right shape.
bindings example {
  multibind Array[Data], 'flattened-data' as 'example' {
    combinator          => |$memo, $x| { $memo + flatten($x) },
    flatten             => true,
    uniq                => true,
    priority_on_named   => false,
    priority_on_unnamed => true,
  }
  multibind Hash[Data], 'merged-hash' as 'merged' {
    combinator          => |$key, $current, $value| { $current + $value },
    conflict_resolution => 'append',
    flatten             => 1,
  }
  multibind Hash[Array[String]], 'groups' as 'groups' {
    conflict_resolution => 'merge',
    uniq                => true,
  }
  bind 'x' to 42 {
    transformer => |$v| { $v * 2 },
  }
  bind 'y' to producer Type[MyProducer] {
    producer_args => { 'size' => 3 },
    singleton     => false,
  }
  bind parameters Web[one] to Sql[one] {
    map => { dbuser => user, dbpass => 'password' },
  }
  bind parameters Web[two] to Sql[?? name == two] {
    select_result => |$results| { $results[0] },
  }
  bind map Web to Sql {
    key_in_web => key_in_sql,
  }
}
