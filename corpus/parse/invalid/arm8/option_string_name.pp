bindings mymodule::default {
  multibind Array[Data], 'data' { 'combinator' => |$memo, $x| { $memo + $x } }
}
