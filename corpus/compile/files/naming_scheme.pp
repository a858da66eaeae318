# The ARM-8 naming scheme: parameters, maps, variables, classes.
bindings naming_scheme {
  bind parameters ntp to { servers => ['10.0.0.1'], 'iburst' => true }
  bind parameters Web['a/b[1]'] to { docroot => '/srv/www' }
  bind map Web to Sql { db_user => user }
  bind parameters Web[one] to optional LimitedServices[web]
  bind variables to { mainurl => 'http://example.org', 'port' => 80 }
  bind variables Integer to { workers => 4 }
  bind abstract variables to ['secret', 'token']
  include [ntp, ssh]
  exclude telnet
}
