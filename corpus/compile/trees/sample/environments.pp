site {
  Environment {
    modulepath => 'modules',
  }
  environment { 'production': }
  environment { 'staging':
    manifest => 'manifests/staging.pp',
  }
  dynamic_environments { '/etc/puppet/environments':
    modulepath => "modules:${confdir}/modules",
  }
}
