bindings default {
  bind 'motd' to 'next'
  # Only this environment's site counts: data_center is not one of its categories.
  when data_center 'ams' {
    bind 'ntp::servers' to ['ntp.ams.example.com']
  }
  bind 'motd' to 'twice'
}
