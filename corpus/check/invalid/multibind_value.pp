# A multibind's value is what is bound in it: a `to` on the multibind itself would be dropped.
bindings mymodule::default {
  multibind Array[String], 'users' as 'all-users' to ['root']
  bind to 'admin' in 'all-users'
}
