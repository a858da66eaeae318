bindings default {
  bind 'motd' to "${::fqdn}: ${environment} from master"
  when data_center 'ams' {
    bind 'ntp::servers' to ['ntp1.ams.example.com', 'ntp2.ams.example.com']
  }
}
