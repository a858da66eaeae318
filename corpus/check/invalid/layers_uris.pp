site {
  bindings => [
    layer { 'site': include => ['default', 'confdir:', 'confdir:/'] },
    layer { 'custom': include => ['my_ldap:/people', 'modules:/*::default'] },
    layer { 'modules':
      include => ['module:/*::*', 'module:/ntp::*', 'confdir:/*::default', 'module:/*/x::y'],
      exclude => 'module:',
    },
    # Names, not paths: nothing climbs out of the environment or a module.
    layer { 'escapes': include => ['confdir:/../../etc/passwd', 'confdir:/%2e%2e/secrets', 'module-hiera:/ntp/../../x'] },
  ]
}
