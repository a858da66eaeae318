bindings default {
  bind 'motd' to 'production'
  when data_center 'ams' {
    bind 'ntp::servers' to ['ntp.ams.example.com']
  }
}
