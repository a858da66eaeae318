# modules/ntp/bindings/default.pp holds `bindings ntp::default`.
bindings ntp::defaults {
  bind parameters ntp to { servers => ['0.pool.ntp.org'] }
}
