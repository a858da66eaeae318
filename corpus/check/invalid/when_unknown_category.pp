# Without a site in the check, an undeclared category is a warning: the site that uses these
# bindings must declare it.
bindings example {
  when virtual true {
    bind 'ntp::servers' to []
  }
  when nodee 'kermit.example.com' {
    bind 'ntp::servers' to ['10.0.0.1']
  }
}
