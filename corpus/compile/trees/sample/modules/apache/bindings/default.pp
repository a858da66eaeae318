bindings apache::default {
  bind abstract 'apache::docroot'
  bind 'apache::workers' to 4
}
