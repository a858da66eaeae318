# A typo in the site's category name: the bindings are right, and one finding says so at the
# site instead of blaming every `when osfamily`.
site {
  categories { osfamly => $facts['os']['family'] }
}
