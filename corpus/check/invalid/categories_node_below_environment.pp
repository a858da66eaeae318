# `node` may not rank below `environment`.
site {
  categories {
    environment => true,
    node        => "$::fqdn",
  }
}
