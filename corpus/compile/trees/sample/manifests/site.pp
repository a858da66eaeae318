site {
  categories {
    node        => "$::fqdn",
    data_center => $::data_center,
    environment => true,
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'roles': include => ['confdir:/roles::web?optional', 'enc:'] },
    layer { 'modules':
      include => 'module:/*::default',
      exclude => 'module:/legacy::default',
    },
  ]
}
node default {
  include ntp
}
