# The site ranks `environment` above `osfamily` (ARM-8 moves it just above `common` only when
# it is missing): module data must follow this order.
site {
  categories {
    node        => $::fqdn,
    environment => true,
    osfamily    => $::osfamily,
  }
}
