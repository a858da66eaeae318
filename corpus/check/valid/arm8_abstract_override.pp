# ARM-8 "Abstract Bindings", "Override Bindings", "Combining Override and Abstract".
bindings mymodule::default {
  bind abstract "the meaning of life"
  bind "the meaning of life" to 42
  bind override "the meaning of life" to 42
  bind "the meaning of life" to 43
  bind abstract override "the meaning of life"
}
