# staging's `confdir:` bindings (its bindingsdir), instead of master/bindings.
bindings default {
  bind 'motd' to "${::fqdn}: ${environment} (staging bindings)"
  bind 'apache::workers' to 2
}
