site {
  Environment {
    modulepath => 'modules/dist:modules/site:/opt/puppet/share/puppet/modules',
  }
  dynamic_environments { '/etc/puppet/environments':
  }
  environment { 'production':
    envdir     => "$confdir/master",
    modulepath => '$confdir/modules:modules/site:modules/dist',
  }
}
$environment = $agent_environment ? {
  undef   => 'production',
  default => $agent_environment,
}
