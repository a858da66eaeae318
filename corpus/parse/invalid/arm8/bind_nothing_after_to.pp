# The value follows `to`.
bindings ntp {
  bind 'ntp::servers' to
}
