site {
  Environment {
    modulepth => 'modules/dist:modules/site',
  }
  environment { 'production':
    envdir  => '/etc/puppet/master',
    owner   => 'puppet',
  }
  dynamic_environments { '/etc/puppet/environments':
    manifst => 'site.pp',
  }
}
