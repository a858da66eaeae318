bindings default {
  bind 'my_ldap' to Type[MyLdapProvider] in 'bindings_providers'
  bind 'main site URL for blogs' to 'http://blogs.example.org'
  multibind Array[String], 'users' as 'included_users'
  bind to 'anna' in 'included_users'
  bind to ['akuna', 'ries'] in 'included_users'
  when virtual true {
    bind override 'ntp::servers' to []
  }
  when node 'kermit.example.com' {
    bind parameters ntp to { servers => ['10.0.0.1'] }
  }
  include [ntp, ssh]
}
