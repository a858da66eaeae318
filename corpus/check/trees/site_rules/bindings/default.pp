# With a site in the tree, a category it does not declare is an error.
bindings default {
  when data_centre 'dc1' {
    bind 'ntp::servers' to ['10.1.0.1']
  }
  when virtual true {
    bind 'ntp::servers' to []
  }
}
