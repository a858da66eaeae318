bindings example {
  multibind String, 'names' as 'mymodule::names'
  multibind Integer, 'sizes'
  multibind Array[String], 'users' as 'included_users'
}
