# ARM-9 data in modules: each module's hiera.yaml breaks one rule (versions 2 and 3).
site {
  categories {
    node        => $::fqdn,
    osfamily    => $::osfamily,
    environment => true,
  }
}
