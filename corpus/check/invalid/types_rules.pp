bindings example {
  bind Integr, 'mymodule::size' to 42
  bind Array[String, Integer], 'mymodule::names' to []
  bind Hash[String, Integer, Data], 'mymodule::map' to {}
  bind Integer, 'mymodule::port' to 'abc'
  bind Array[String], 'mymodule::hosts' to ['a', 1]
  bind variables Integer to {
    a => 10,
    b => 'bananas',
  }
  bind parameters Integer[x] to { value => 1 }
  bind dependency String['a'] -> Service['sshd']
}
