bindings ntp::default {
  bind 'ntp::servers' to ['shared.pool.ntp.org']
  bind 'ntp::iburst' to true
}
