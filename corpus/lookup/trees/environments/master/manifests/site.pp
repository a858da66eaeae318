site {
  categories {
    node        => "${::fqdn}",
    data_center => $::data_center,
    environment => true,
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
