site {
  categories {
    node        => $::fqdn,
    data_center => $::data_center,
  }
  layers {
    site: include => 'bindings/*'
  }
}
