bindings ntp::default {
  bind parameters ntp to { servers => ['pool.ntp.org'], iburst => true }
}
