# ARM-8 "Abstract Binding of Variables" as written in the spec: `varibles` (D4).
bindings mymodule::default {
  bind abstract varibles to ['must_be_set', 'this_too']
}
