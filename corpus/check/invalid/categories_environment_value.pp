# `environment` may be listed only to set its precedence, with the value `true`.
site {
  categories {
    node        => "$::fqdn",
    environment => $::environment,
  }
}
