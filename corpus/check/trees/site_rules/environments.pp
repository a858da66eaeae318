# environments.pp runs before the injector exists: no lookup or inject anywhere in it.
$default_env = lookup('default_environment')
site {
  environment { 'production':
    envdir => '/etc/puppet/master',
  }
}
environment { 'test':
  envdir => '/etc/puppet/test',
}
$environment = 'production'
