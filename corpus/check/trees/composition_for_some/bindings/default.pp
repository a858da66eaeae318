bindings default {

  # Abstract, made concrete only in ams: every other data center fails `x` alone.
  bind abstract 'x'
  when dc 'ams' { bind 'x' to 1 }

  # An override that loses in ams is irrelevant there; elsewhere it overrides nothing.
  bind override 'o' to 1
  when dc 'ams' { bind 'o' to 2 }

  # A tie that the more specific binding beats in ams.
  when dc 'ams' { bind 't' to 3 }
  bind 't' to 1
  bind 't' to 2

  bind 'y' to 4
}
