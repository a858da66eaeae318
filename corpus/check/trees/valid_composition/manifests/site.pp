site {
  categories {
    node        => "$::fqdn",
    data_center => "$::data_center",
    environment => true,
  }
  bindings => [
    layer { 'site': include => ['confdir:/default', 'confdir:/optional?optional'] },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
