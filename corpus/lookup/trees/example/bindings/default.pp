bindings default {
  bind 'ntp::servers' to ['ntp1.example.com', 'ntp2.example.com']
  when data_center 'ams' {
    bind 'ntp::servers' to ['ntp.ams.example.com']
  }
  when node 'db01.fra.example.com' {
    bind Integer, 'postgresql::max_connections' to 500
  }
  bind 'motd' to "Welcome to ${::fqdn} (${environment})"
  bind override Integer, 'apache::workers' to 8
  include base
  when virtual true {
    exclude hwmonitor
  }
}
