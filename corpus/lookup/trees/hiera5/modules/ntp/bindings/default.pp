# A module's own binding in the `modules` layer, where its Hiera data also is: the
# environment's data (the `site` layer) still wins for a key both have.
bindings ntp::default {
  bind 'profile::beats_module_bind' to 'module binding'
  when osfamily 'redhat' {
    bind 'ntp::package' to 'chrony'
  }
}
