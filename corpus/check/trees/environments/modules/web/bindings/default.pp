# Read by both environments: its finding is reported once, naming both.
bindings web::default {
  bind 'web::port' to 80
  bind 'web::port' to 8080
}
