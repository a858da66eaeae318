site {
  categories {
    node        => "$::fqdn",
    data_center => $::dc,
    virtual     => "$::is_virtual",
    data_center => $::datacenter,
  }
}
