bindings default {
  bind 'motd' to "${::fqdn}: branch ${environment}"
  bind 'apache::workers' to 16
}
