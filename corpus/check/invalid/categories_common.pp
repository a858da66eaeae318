# `common` is always the lowest category; it may not be listed (ARM-8 "Categorization", D8).
site {
  categories {
    node    => "$::fqdn",
    virtual => "$::is_virtual",
    common  => true,
  }
}
