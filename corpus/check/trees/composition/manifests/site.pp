site {
  categories {
    node        => "$::fqdn",
    environment => true,
    virtual     => "$::is_virtual",
  }
  bindings => [
    layer { 'site': include => ['confdir:/default', 'confdir:/extra', 'confdir:/missing'] },
    layer { 'modules':
      include => ['module:/*::default'],
      exclude => ['module:/web::default'],
    },
  ]
}
