bindings default {
  bind override 'ntp::servers' to ['ntp1.example.com']
  when data_center 'ams' {
    bind override 'ntp::servers' to ['ams.pool.ntp.org']
  }
  bind 'apache::docroot' to '/srv/www'
}
