bindings mymodule::default {
  bind 'mymodule::port' to 8080
}
bindings mymodule::extra {
  bind 'mymodule::host' to 'localhost'
}
