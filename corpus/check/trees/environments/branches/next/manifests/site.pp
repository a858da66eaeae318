# The branch has no data_center category.
site {
  categories {
    node        => "${::fqdn}",
    environment => true,
  }
}
