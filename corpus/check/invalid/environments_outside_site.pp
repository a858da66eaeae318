# Environment resources configure the site and live in `site { }` only.
site {
  environment { 'production':
    envdir => '/etc/puppet/master',
  }
}
environment { 'test':
  envdir => '/etc/puppet/test',
}
Environment {
  modulepath => 'modules',
}
if $::testing {
  dynamic_environments { '/srv/environments': }
}
