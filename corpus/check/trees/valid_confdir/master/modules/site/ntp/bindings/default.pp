bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org', '1.pool.ntp.org']
  bind abstract variables to 'mainurl'
  multibind Hash[Data], 'names-with-data' as 'ntp::names-with-data'
  bind 'Mary' to 'engineering' in 'ntp::names-with-data'
  bind 'Fred' to ['support', 'sales'] in 'ntp::names-with-data'
}
