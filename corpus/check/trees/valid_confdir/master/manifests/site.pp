site {
  categories {
    node        => "$::fqdn",
    environment => true,
    virtual     => "$::is_virtual",
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'external': include => 'my_ldap:' },
    layer { 'modules':
      include => ['module:/*::default', 'module:/ntp::load_balanced'],
      exclude => ['module:/ntp::default'],
    },
  ]
}
node default {
  include ntp
}
