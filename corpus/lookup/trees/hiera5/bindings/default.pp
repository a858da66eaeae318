# The site's bindings, in the `site` layer with the environment's Hiera data: a binding under
# a `when` is more specific than Hiera's answer (in `common`); a binding in `common` of the
# same layer would conflict with it.
bindings default {
  when node 'n1.example.com' {
    bind 'profile::overridden' to 'from a binding for n1'
  }
  bind 'ntp::package' to 'ntp-from-site'
}
