# Excluded by the site: it takes no part in the model.
bindings legacy::default {
  bind 'ntp::servers' to ['old.example.com']
}
