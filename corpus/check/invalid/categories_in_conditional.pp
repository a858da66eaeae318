# Categories are fixed for the whole site: not declared under a condition.
site {
  if $::kernel == 'Linux' {
    categories {
      node    => "$::fqdn",
      virtual => "$::is_virtual",
    }
  } else {
    categories {
      node => "$::fqdn",
    }
  }
  case $::osfamily {
    'Debian': {
      categories { osfamily => 'debian' }
    }
    default: {}
  }
}
