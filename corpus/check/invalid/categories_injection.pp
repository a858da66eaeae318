# No injector exists while category values are evaluated (D8, D16).
site {
  categories {
    node        => "$::fqdn",
    data_center => lookup('data_center'),
    tier        => inject(String, 'tier'),
    rack        => 'rack'.lookup,
  }
}
