bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org']
  bind 'ntp::iburst' to true
  bind abstract 'ntp::pool'
  bind abstract 'ntp::key'
  bind abstract 'ntp::mode'
  when environment 'production' { bind 'ntp::mode' to 'server' }
}
