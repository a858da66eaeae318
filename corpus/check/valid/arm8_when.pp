# ARM-8 "Category Specific Bindings" with the site that declares `virtual`.
site {
  categories {
    node    => "$::fqdn",
    virtual => "$::is_virtual",
  }
}
bindings x {
  bind 'a common binding' to 1
  when node 'kermit.example.com' {
    bind 'a node binding' to 2
  }
  when virtual true {
    when node 'kermit.example.com' {
      bind 'virtual kermit' to 3
    }
    bind 'anything virtual' to 4
  }
  when virtual true and node 'kermit.example.com' {
    bind 'virtual kermit again' to 5
  }
  when virtual true or node 'kermit.example.com' {
    bind 'virtual or kermit' to 6
  }
  when node kermit.example.com {
    bind 'dotted name value' to 7
  }
  when common {
    bind 'common' to 8
  }
}
