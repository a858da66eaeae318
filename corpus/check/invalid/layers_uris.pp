site {
  bindings => [
    layer { 'site': include => ['default', 'confdir:', 'confdir:/'] },
    layer { 'custom': include => ['my_ldap:/people', 'modules:/*::default'] },
    layer { 'modules':
      include => ['module:/*::*', 'module:/ntp::*', 'confdir:/*::default', 'module:/*/x::y'],
      exclude => 'module:',
    },
  ]
}
