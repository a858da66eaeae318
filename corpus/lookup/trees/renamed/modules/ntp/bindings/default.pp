bindings ntp::default {
  bind 'ntp::servers' to ['a.pool.example.com', 'b.pool.example.com']
}
