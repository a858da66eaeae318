# D1: inside bindings, a word after `.` or before `=>` is a name; `in` inside brackets is the
# operator.
bindings mymodule::names {
  bind 'doubled' to $list.map |$v| { $v * 2 }
  bind 'hash' to { alias => 1, to => 2, map => 3 }
  bind 'membership' to ('a' in ['a', 'b'])
}
