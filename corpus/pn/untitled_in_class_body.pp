class a { file { ensure => present } }
