# ARM-8 "Multi-binding", "Array Multibind Example", "Overriding Multibindings".
bindings mymodule::default {
  multibind Array[String], "names" as "mymodule::list-of-names"
  bind to 'Mary' in 'mymodule::list-of-names'
  bind to 'John' in 'mymodule::list-of-names'

  multibind Hash[Data], 'names-with-data' as 'mymodule::names-with-data'
  bind 'Mary' to 'engineering' in 'mymodule::names-with-data'
  bind 'John' to 'support' in 'mymodule::names-with-data'
  bind 'Fred' to ['support', 'sales'] in 'mymodule::names-with-data'

  multibind Array[String], 'users' as 'included_users'
  bind to 'anna' in 'included_users'
  bind to ['akuna', 'ries'] in 'included_users'

  multibind Hash[TypeValidatorService], 'syntax' as 'syntax-validators'
  bind "xml" to Type[MyXmlValidator] in 'syntax-validators'
  multibind override Hash[TypeValidatorService], 'syntax'
}
