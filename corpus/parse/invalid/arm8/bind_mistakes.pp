# The common mistakes in a `bind`, each said as the fix; every one in the block is reported.
bindings mistakes {
  bind 'servers' ['ntp1', 'ntp2']
  bind 'port' => 123
  bind 'port' = 123
  bind 'port' : 123
  bind 'port' value 123
  bind 'iburst' as true
  bind Integer 'port' to 123
  bind 'peers' to lookup 'ntp::servers'
  bind 'fine' to 1
  when datacenter 'ams' {
    bind 'port' => 1
  }
}
