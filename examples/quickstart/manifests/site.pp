# The site: how requests are told apart (categories, most specific first) and which bindings
# count most (layers, highest first).
site {
  categories {
    node        => $::fqdn,
    datacenter  => $::datacenter,
    environment => true,
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
