bindings apache::default {
  bind abstract 'apache::docroot'
  when environment 'production' { bind 'apache::docroot' to '/srv/www' }
  bind 'apache::docroot' to '/var/www'
}
