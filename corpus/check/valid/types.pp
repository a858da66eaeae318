# Types as ARM-8 writes them, with literal values of those types.
bindings example {
  bind Integer, 'mymodule::size' to 42
  bind Number, 'mymodule::ratio' to 0.5
  bind Literal, 'mymodule::anything' to 'x'
  bind Hash, 'mymodule::stuff' to {'a' => 10, 'b' => [1,2,3]}
  bind Array[String], 'mymodule::hosts' to ['a', "b-${::domain}"]
  bind Hash[String, Integer], 'mymodule::ports' to { 'http' => 80 }
  bind Data, 'mymodule::nothing' to undef
  bind abstract Array[class ntp], 'ntp resources'
  bind Type[SyntaxChecker], 'xml' to Type[MyXmlSyntaxChecker]
  bind class ntp to class ntp2
  bind MyResourceType to MyBetterResourceType
  bind Pattern, 'mymodule::match' to /^a+$/
  bind parameters File['/etc/motd'] to { content => 'hello' }
}
