bindings example {
  bind variables to { myvar => 42, my_other_var => 44 }
  bind variables to { myvar => 43 }
  # Abstract beside concrete is composition, not a duplicate; abstract twice is.
  bind abstract variables to ['must_be_set', 'myvar']
  bind abstract variables to 'must_be_set'
}
