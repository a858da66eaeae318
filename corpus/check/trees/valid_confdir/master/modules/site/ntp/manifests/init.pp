class ntp($servers = []) {
  file { '/etc/ntp.conf':
    content => inline_template('<%= @servers.join("\n") %>'),
  }
}
