# Staging's root manifest: no data_center category, so data-center bindings never apply.
site {
  categories {
    node        => "${::fqdn}",
    environment => true,
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
