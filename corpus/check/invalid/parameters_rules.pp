bindings example {
  # A type may produce a target's parameters once.
  bind parameters Web[one] to Sql[one]
  bind parameters Web[one] to Sql[two]
  bind parameters Web[one] to DbUserInfo[general]
  # Keys of a parameter hash are parameter names.
  bind parameters ntp to {
    'servers'   => ['0.pool.ntp.org'],
    'Enable'    => true,
    42          => 'x',
  }
}
