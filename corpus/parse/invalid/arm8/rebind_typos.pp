# ARM-8 "Rebinding" as written in the spec: an unbalanced quote and `AS` in upper case (D2, D4).
bindings mymodule::default {
  bind alias "the meaning of life" AS "the meaning of love
}
