# Every type the model writes, declared or inferred (D12): scalars, collections, classes,
# resources and runtime types.
bindings types {
  bind Any, 'anything' to 1
  bind Object, 'object' to 'o'
  bind Data, 'data' to [1, 'a']
  bind Literal, 'literal' to 1.5
  bind String, 'string' to 'text'
  bind Integer, 'integer' to 42
  bind Float, 'float' to 0.5
  bind Number, 'number' to 7
  bind Numeric, 'numeric' to 7.5
  bind Boolean, 'boolean' to true
  bind Pattern, 'pattern' to /^web\d+$/
  bind Array[String], 'strings' to ['a', 'b']
  bind Hash[String, Array[Integer]], 'ports' to { 'http' => [80, 8080] }
  bind Class[ntp], 'time_class' to Class[ntp]
  bind File['/etc/motd'], 'motd_file' to File['/etc/motd']
  bind Type[Example::Service], 'service' to Type[Example::Service]
  bind 'nothing' to undef
  bind 'empty' to []
  bind 'inferred_regex' to /x/
}
