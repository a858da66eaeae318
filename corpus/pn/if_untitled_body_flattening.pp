if $x { file { ensure => present } }
if $x { file { ensure => present } $y = 1 }
