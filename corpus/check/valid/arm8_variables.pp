# ARM-8 "Binding Variables", "Typing Variables", "Abstract Binding of Variables" (D3 synonyms
# and flag positions).
bindings mymodule::default {
  bind variables to {
    myvar => 42,
    my_other_var => 44
  }
  bind variables Integer to {
    a => 10,
    b => -3
  }
  bind variables abstract to 'mainurl'
  bind abstract variables to ['must_be_set', 'this_too']
  bind abstract variable Array[String] to ['blog_administrators']
  bind parameter ntp to { enable => true }
}
