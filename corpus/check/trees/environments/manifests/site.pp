site {
  categories {
    node        => "${::fqdn}",
    data_center => $::data_center,
    environment => true,
  }
}
