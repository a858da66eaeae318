node a { file { ensure => present } }
