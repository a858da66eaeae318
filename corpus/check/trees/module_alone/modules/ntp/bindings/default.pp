# A module checked on its own: its users' site is meant to supply the abstract binding, and
# could supply the override's target, so both findings are warnings.
bindings ntp::default {
  bind abstract 'ntp::servers'
  bind override 'ntp::restrict' to ['127.0.0.1']
  bind 'ntp::iburst' to true
  bind Boolean, 'ntp::iburst' to false
}
