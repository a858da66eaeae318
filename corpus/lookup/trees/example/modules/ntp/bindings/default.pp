bindings ntp::default {
  bind abstract 'ntp::servers'
  bind 'ntp::iburst' to true
  bind 'dns::default_resolvers' to ['10.0.0.53']
  include ntp

  # ARM-8's combinator examples (the hash example's test inverted: with `unless`, as the spec
  # writes it, the first contribution would add undef to an array).
  multibind Array[Data], 'flattened-data' as 'example' {
    combinator => |$memo, $x| { $memo + flatten($x) }
  }
  bind to [1,2,[3]] in 'example'
  bind to [4,[[5,6]]] in 'example'

  multibind Hash[Data], 'merged-hash' as 'example2' {
    combinator => |$key, $current, $value| {
      if !$current { $value } else { $current + $value }
    }
  }
  bind 'fruits' to ['apple', 'orange'] in 'example2'
  bind 'fruits' to ['pear', 'mango'] in 'example2'
  bind 'berries' to ['strawberry', 'blueberry'] in 'example2'
}
