bindings default {
  when dc 'lon' {
    bind renamed 'ntp::servers' as 'ntp::legacy_servers'
  }
}
