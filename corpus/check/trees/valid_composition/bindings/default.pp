bindings default {
  # More specific combinations beat their parts (D6): no two of these tie.
  bind 'motd' to 'welcome'
  when environment 'dev' { bind 'motd' to 'dev' }
  when data_center 'ams' { bind 'motd' to 'ams' }
  when data_center 'ams' and environment 'dev' { bind 'motd' to 'ams dev' }
  when node 'kermit.example.com' { bind 'motd' to 'kermit' }
  when node 'kermit.example.com' { when environment 'dev' { bind 'motd' to 'kermit dev' } }
  when data_center 'ams' or data_center 'fra' { bind 'ntp::pool' to 'eu.pool.ntp.org' }
  when data_center 'nyc' { bind 'ntp::pool' to 'us.pool.ntp.org' }

  # Abstract and concrete in one layer: the concrete one wins whatever the precedence (D13).
  bind 'ntp::pool' to 'pool.ntp.org'

  # Replaces the module's servers, from a higher layer.
  bind override 'ntp::servers' to ['ntp1.example.com']

  # A typed key that is not Data is its own key.
  bind Type[Ntp::Client], 'ntp::client' to Type[Ntp::Client::Chrony]

  # A predicate value known only to the request never proves a conflict.
  when node "${::hostname}.example.com" { bind 'motd' to 'by host' }
}
