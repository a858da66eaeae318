# A missing `]`: one syntax error, and the rules across files stay silent about what this
# file might bind (no "add bindings/default.pp", no abstract binding "never made concrete").
bindings default {
  bind 'ntp::servers' to ['a', 'b'
  bind 'ntp::mode' to 'client'
  when dc 'ams' { bind 'x' to 1 }
}
