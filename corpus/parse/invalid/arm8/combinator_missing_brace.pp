# ARM-8 "Multibind Hash Combinator Option" as written in the spec: the options hash is not closed.
bindings mymodule::default {
  multibind Hash[Data], 'merged-hash' as 'example' {
    combinator => | $key, $current, $value| {
      unless !$current
        { $value }
      else
        { $current + $value }
    }
  bind 'fruits' to ['apple', 'orange'] in 'example'
  bind 'fruits' to ['pear', 'mango'] in 'example'
}
