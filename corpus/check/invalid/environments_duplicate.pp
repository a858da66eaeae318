site {
  environment { 'production':
    envdir => '/etc/puppet/master',
  }
  environment { 'staging':
    envdir => '/etc/puppet/staging';
  'production':
    envdir => '/etc/puppet/production',
  }
}
site {
  # A bare word names the same environment as the quoted string.
  environment { staging:
    envdir => '/srv/staging',
  }
}
