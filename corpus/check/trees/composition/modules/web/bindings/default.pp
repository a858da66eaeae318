# Excluded by the site: its abstract binding and override do not take part.
bindings web::default {
  bind abstract 'web::port'
  bind override 'web::docroot' to '/srv/www'
}
