# ARM-8 "Categorization" and "Adding a Virtual Category Below Environment".
site {
  categories {
    node        => "$::fqdn",
    environment => true,
    virtual     => "$::is_virtual"
  }
}
