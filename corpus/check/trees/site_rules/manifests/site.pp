site {
  categories {
    node        => "$::fqdn",
    environment => true,
    data_center => $::dc,
  }
  environment { 'production':
    envdir => '/etc/puppet/production',
  }
}
