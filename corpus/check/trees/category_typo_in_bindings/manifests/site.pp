# The site is right and one `when` misspells the category: the finding is at the `when`, and
# points at the declaration too.
site {
  categories { osfamily => $facts['os']['family'] }
}
