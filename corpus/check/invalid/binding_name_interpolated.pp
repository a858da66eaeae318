# Keys are fixed when bindings are composed: a name cannot depend on the request.
bindings example {
  bind "${::osfamily}::packages" to ['ntp']
  bind String, "site::${::domain}" to 'x'
  # A plain double-quoted name is a literal.
  bind "site::name" to 'x'
}
