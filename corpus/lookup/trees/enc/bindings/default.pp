bindings default {
  bind 'motd' to "${::certname} in ${environment}"
  exclude telnet
  bind 'cert_role' to $trusted['extensions']['pp_role']
  bind 'fqdn_seen' to $::fqdn
  bind 'with_default' to lookup('absent::key', Data, 'fallback')
  bind Integer, 'count' to $::count
}
