bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org']
}
