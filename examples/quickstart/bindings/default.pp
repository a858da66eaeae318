# The site's own bindings: they beat anything a module binds.
bindings default {
  bind 'motd::message' to "Managed by Puppet on ${::fqdn}"
  when datacenter 'ams' {
    bind 'ntp::servers' to ['ntp1.ams.example.com', 'ntp2.ams.example.com']
  }
}
