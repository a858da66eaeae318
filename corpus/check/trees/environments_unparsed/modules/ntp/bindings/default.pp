bindings ntp::default {
  bind abstract 'ntp::mode'
  bind 'ntp::servers' to ['pool']
}
