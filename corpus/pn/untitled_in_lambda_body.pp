$x.each |$y| { file { ensure => present } }
