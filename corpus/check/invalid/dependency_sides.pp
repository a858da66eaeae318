bindings example {
  bind dependency File['/etc/ssh/sshd_config'] ~> Service['sshd']
  bind dependency 'sshd_config' -> Service['sshd']
  bind dependency [File['/etc/motd'], Package] -> Service['sshd']
}
