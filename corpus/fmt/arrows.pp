file { '/etc/motd':
  ensure => file,
  owner => 'root',
  mode => '0644',
  content => $motd,
}
$config = {
  'listen' => '0.0.0.0',
  'port' => 8080,
  'tls' => { 'cert' => '/etc/ssl/a.pem', 'key' => '/etc/ssl/a.key' },
  'workers'=>4,
}
