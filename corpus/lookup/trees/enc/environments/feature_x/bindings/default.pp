# A branch checked out as a dynamic environment: its own bindings, the default site (no
# manifests/site.pp here) and layers, the modules on its own modulepath only.
bindings default {
  bind 'motd' to "${::certname} on the ${environment} branch"
}
