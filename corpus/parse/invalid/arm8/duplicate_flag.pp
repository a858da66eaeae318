bindings mymodule::default {
  bind abstract abstract "x"
}
