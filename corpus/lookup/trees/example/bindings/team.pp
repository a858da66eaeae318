bindings team {
  # Shadowed: the site layer binds motd, and a higher layer always wins (D11).
  when environment 'staging' {
    bind 'motd' to "STAGING ${::fqdn}"
  }
  bind to 'ops@example.com' in 'contacts'
  bind 'dns::resolvers' to lookup('dns::default_resolvers') + ['192.0.2.53']
  bind 'mail::relay' to $::data_center ? {
    'ams'   => 'relay.ams.example.com',
    default => 'relay.example.com',
  }
  include hwmonitor
}
