# ARM-8 "Binding Parameters using a Literal Hash" as written in the spec: one `}` too many.
bindings mymodule::default {
  bind parameters ntp to {
        autoupdate  => false,
        enable      => true,
      }
  }
}
