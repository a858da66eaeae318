bindings default {
  bind 'motd' to "${::certname} in ${environment}"
  exclude telnet
}
