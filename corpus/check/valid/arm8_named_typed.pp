# ARM-8 "Named Binding", "Typed, Named Binding", "Typed, Anonymous Binding".
bindings mymodule::default {
  bind "main site URL for blogs" to 'http://blogs.example.org'
  bind Integer, "mymodule::size" to 42
  bind Hash, "mymodule::stuff" to {'a' => 10, 'b' => [1,2,3]}
  bind abstract Array[class ntp], "ntp resources"
  bind Type[SyntaxChecker], "xml" to Type[MyXmlSyntaxChecker]
  bind Type[Logger] to Type[SpecialLogger]
  bind class ntp to class ntp2
  bind MyResourceType to MyBetterResourceType
}
