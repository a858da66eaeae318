bindings default {
  # D12: Integer and String are both Data, so this is one key bound twice at top level.
  bind Integer, 'port' to 80
  bind 'port' to '8080'

  # Different nodes never meet; node beats virtual: no conflicts.
  when node 'kermit.example.com' { bind 'motd' to 'hi kermit' }
  when node 'piggy.example.com' { bind 'motd' to 'hi piggy' }
  when virtual true { bind 'motd' to 'hi vm' }

  # The same predicates as in extra.pp, written with `and`.
  when node 'kermit.example.com' and virtual true {
    bind 'tuning' to 'fast'
  }

  # Overrides: one replaces a less specific binding here, one a module's, one nothing.
  bind 'loglevel' to 'info'
  when environment 'dev' { bind override 'loglevel' to 'debug' }
  bind override 'ntp::servers' to ['ntp.example.com']
  bind override 'lonely' to 1

  # Abstract here, concrete only in the lower modules layer: the abstract one hides it.
  bind abstract 'ntp::iburst'

  # The site makes the module's abstract pool concrete.
  bind 'ntp::pool' to 'pool.example.com'
}
