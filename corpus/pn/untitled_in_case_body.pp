case $x { 1: { file { ensure => present } } }
