# A site: categories, environments and layers as ARM-8 writes them.
site {
  categories {
    node        => "$::fqdn",
    environment => true,
    data_center => $::datacenter ? { undef => '', default => $::datacenter },
    virtual     => "$::is_virtual",
  }
  Environment {
    modulepath  => 'modules',
    manifestdir => 'manifests/',
    manifest    => 'site.pp',
    templatedir => 'templates/',
    bindingsdir => 'bindings',
  }
  environment { 'production':
    envdir => '/etc/puppet/master',
  }
  environment { 'windows':
    envdir => 'C:/ProgramData/PuppetLabs/puppet/etc',
  }
  dynamic_environments { '/etc/puppet/environments':
    modulepath => 'modules:/opt/puppet/share/puppet/modules',
  }
  bindings => [
    layer { 'site': include => ['confdir:/default', 'confdir-hiera:/hiera'] },
    layer { 'enc': include => 'enc:/classes' },
    layer { 'modules':
      include => ['module:/*::default', 'module-hiera:/*', "module:/${::role}::default"],
      exclude => 'module:/myspecial::default',
    },
  ]
}
