# Compiled into models/site.json (`pbc compile --compact . > models/site.json`); tests/lookup.rs
# checks that the committed model is what pbc compiles now.
bindings default {
  bind 'motd' to "Welcome to ${::fqdn}"
  bind 'ports' to [80, 443]
  bind 'workers' to $::processorcount * 2
  bind 'failing' to fail("no value for ${::fqdn}")
  when data_center 'ams' {
    bind 'ports' to [8080]
  }
}
