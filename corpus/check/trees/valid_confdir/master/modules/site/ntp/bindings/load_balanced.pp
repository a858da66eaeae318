bindings ntp::load_balanced {
  bind 'ntp::servers' to ['lb.example.com']
}
