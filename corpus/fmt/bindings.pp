site {
categories {
node => $trusted['certname'],
    datacenter => $facts['dc'],
}
  bindings => [
layer { 'site': include => 'confdir:/default' },
      layer { 'modules':
  include => 'module:/*::default',
    exclude => 'module:/ntp::default' },
  ]
}
bindings default {
bind 'ntp::servers'
  to ['a', 'b']
    when datacenter 'eu' {
  bind override 'ntp::servers' to ['eu']
      }
multibind Array[String], 'admins' as 'site::admins'
}
