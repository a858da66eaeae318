bindings example {
  # An abstract binding has no value.
  bind abstract 'the meaning of life' to 42
  # Parameters always exist: they cannot be abstract.
  bind abstract parameters ntp to { servers => [] }
  # A concrete binding must bind something.
  bind 'the meaning of love'
  bind Integer, 'mymodule::size'
  # Abstract variables name the variables (allowed).
  bind abstract variables to ['must_be_set', 'this_too']
}
