# The ntp module's defaults.
bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org', '1.pool.ntp.org']
  bind Boolean, 'ntp::iburst' to true
}
