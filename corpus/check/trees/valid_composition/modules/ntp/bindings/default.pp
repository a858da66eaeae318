bindings ntp::default {
  bind 'ntp::servers' to ['0.pool.ntp.org']
  bind abstract 'ntp::pool'
  bind Type[Ntp::Client], 'ntp::client' to Type[Ntp::Client::Ntpd]
  when data_center 'ams' { bind override 'ntp::servers' to ['ams.pool.ntp.org'] }
}
