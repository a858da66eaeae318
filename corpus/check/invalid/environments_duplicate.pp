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
