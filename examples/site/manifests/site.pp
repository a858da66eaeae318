# production's root manifest: its categories (highest precedence first) and layers.
site {
  categories {
    node        => "$::fqdn",
    environment => true,
    datacenter  => $facts['datacenter'],
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
