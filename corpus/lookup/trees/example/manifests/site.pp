site {
  categories {
    node        => "${::fqdn}",
    data_center => $::data_center,
    virtual     => $::is_virtual,
    environment => true,
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'team': include => 'confdir:/team' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
