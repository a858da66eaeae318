# The motd module needs a message and leaves it to the site.
bindings motd::default {
  bind abstract String, 'motd::message'
  bind 'motd::path' to '/etc/motd'
}
