bindings example {
  multibind Array[String], 'users' as 'included_users'
  multibind Hash[Data], 'names-with-data' as 'mymodule::names-with-data'
  multibind Hash[Integer], 'sizes' as 'mymodule::sizes'

  # An Array contribution's name is ignored.
  bind 'anna' to 'anna' in 'included_users'
  # Array contributions are elements or arrays of elements.
  bind to 42 in 'included_users'
  bind to ['akuna', 'ries'] in 'included_users'
  # A Hash contribution needs a name: it is the key.
  bind to 'engineering' in 'mymodule::names-with-data'
  # The value must have the element type.
  bind 'small' to 'tiny' in 'mymodule::sizes'
  # ARM-8's typo: no multibind has this id.
  bind 'Mary' to 'engineering' in 'mymoduyle::names-with-data'
}
