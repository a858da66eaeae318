# ARM-8 "Multibind Array Combinator Option" and "Multibind Hash Combinator Option" (the hash
# example's missing `}` added).
bindings mymodule::default {
  multibind Array[Data], 'flattened-data' as 'example' {
    combinator => |$memo, $x| { $memo + flatten($x) }
  }
  bind to [1,2,[3]] in 'example'
  bind to [4,[[5,6]]] in 'example'

  multibind Hash[Data], 'merged-hash' as 'example2' {
    combinator => | $key, $current, $value| {
      unless !$current
        { $value }
      else
        { $current + $value }
    }
  }
  bind 'fruits' to ['apple', 'orange'] in 'example2'
  bind 'fruits' to ['pear', 'mango'] in 'example2'
  bind 'berries' to ['strawberry', 'blueberry'] in 'example2'
}
