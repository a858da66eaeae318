bindings default {
  bind 'ntp::servers' to ['a', 'b'
  bind 'ntp::mode' to 'client'
}
