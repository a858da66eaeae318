file {
  '/etc/a':
  ensure => file,
  mode => '0644';
  '/etc/longer/b':
  ensure => directory,
  recurse => true;
}
case $facts['os']['family'] {
  'Debian': { $pkg = 'apache2' }
  default: {
  $pkg = 'httpd'
  }
}
