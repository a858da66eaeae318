# `when` gives CategorizedBindings (values lower-cased, D9); `and` several predicates; `or` one
# copy per alternative (D7); nesting is kept.
bindings categories {
  when node 'Kermit.Example.COM' { bind 'motd' to 'kermit' }
  when data_center 'ams' and environment 'dev' { bind 'motd' to 'ams dev' }
  when data_center 'ams' or data_center 'fra' { bind 'pool' to 'eu' }
  when virtual true {
    when environment production { bind 'tuning' to 'safe' }
  }
  when common { bind 'everywhere' to 1 }
}
