bindings default {
  bind 'ntp::servers' to ['0.pool.ntp.org', '1.pool.ntp.org']
  when datacenter 'eu-west' {
    bind 'ntp::servers' to ['ntp.eu-west.example.com']
  }
  multibind Array[String], 'admins' as 'site::admins'
  bind to 'alice' in 'site::admins'
  include [ntp, ssh]
}
