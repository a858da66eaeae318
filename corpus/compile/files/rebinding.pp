# Rebinding, dependencies and queries get kinds of their own.
bindings rebinding {
  bind 'the meaning of life' to 42
  bind alias 'the meaning of life' as 'the meaning of love'
  bind renamed String, 'old name' as String, 'new name'
  rebind 'the meaning of life'
  bind dependency Package[ntp] -> Service[ntp]
  bind dependency File['/etc/ntp.conf'] ~> Service[ntp]
  bind 'peers' to Ntp::Server[?? tag == 'eu']
}
