bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org', '1.pool.ntp.org']
  bind 'ntp::iburst' to true
}
