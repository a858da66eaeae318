# A site's entry point: environments, categories and layers (ARM-8).
site {
  Environment {
    modulepath => 'modules/dist:modules/site',
  }
  environment { 'production':
    envdir => "$confdir/master",
  }
  dynamic_environments { "$confdir/environments": }
  categories {
    node        => "$::fqdn",
    environment => true,
    datacenter  => $facts['datacenter'],
  }
  bindings => [
    layer { 'site':    include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
