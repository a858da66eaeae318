# A category name is `[a-z][a-zA-Z0-9_]*`: no namespaces.
site {
  categories {
    node         => "$::fqdn",
    data::center => $::dc,
    tier2        => 1,
  }
}
