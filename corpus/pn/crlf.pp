file { "/tmp/a":
  ensure => file,
  content => "x
y",
}
