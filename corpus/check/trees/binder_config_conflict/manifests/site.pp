# A site and a binder_config.yaml may not both declare categories.
site {
  categories { node => $::fqdn, dc => $::dc }
}
