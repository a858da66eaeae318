# `bind renamed` under a `when` erases the key it renames for the requests it applies to:
# a lookup of that key alone, which reads only the bindings of the keys it asks, is erased too.
site {
  categories { dc => $::dc }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
