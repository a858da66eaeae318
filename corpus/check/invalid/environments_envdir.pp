# `envdir` is absolute; dynamic environments get theirs from the directory found, and their
# root directory is absolute too.
site {
  environment { 'production':
    envdir => 'master',
  }
  environment { 'test':
    envdir => "environments/${name}",
  }
  dynamic_environments { 'environments':
    envdir => '/etc/puppet/other',
  }
}
