# One `site { categories { } }` per environment.
site {
  categories {
    node    => "$::fqdn",
    virtual => "$::is_virtual",
  }
}
site {
  categories {
    data_center => $::dc,
  }
}
