# ARM-8 "environments.pp": environment defaults, static and dynamic environments.
site {
  # Environment defaults
  Environment {
    modulepath  => 'modules/dist:modules/site:/opt/puppet/share/puppet/modules',
    manifestdir => 'manifests/',
  }
  dynamic_environments { "$confdir/environments":
  }
  environment { 'production':
    envdir     => "$confdir/master",
    modulepath => '$confdir/modules:modules/site:modules/dist',
  }
}

$environment = 'production'
