class a { $x = 1 file { ensure => present } }
