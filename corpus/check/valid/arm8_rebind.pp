# ARM-8 "Rebinding" (the spec's first example has an unbalanced quote and upper-case AS; see
# invalid/arm8/rebind_typos.pp).
bindings mymodule::default {
  rebind "the meaning of life"
  bind alias "the meaning of life" as "the meaning of love"
  bind renamed "the meaning of life" as "the meaning of love"
}
