site {
  categories {
    node        => "${::fqdn}",
    tier        => $::tier,
    environment => true,
  }
}
