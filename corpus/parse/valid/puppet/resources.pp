file { "/tmp/x": ensure => file, mode => "0644" }
@@sshkey { $fqdn: key => $k }
@user { 'a': ; 'b': uid => 1, ; }
File { owner => root } File["/x"] { mode => "0600" }
Package["x"] -> Service <| tag == "web" |>
User <<| tag == 'x' and title != 'y' |>> { shell => '/bin/sh', groups +> ['a'] }
class { 'apache': version => 2 }
file { '/a': * => $attrs }
Resource[file] { mode => 1 }
notify { x: unless => 1, if => 2, class => 3 }
a -> b ~> c <- d <~ e
file { ensure => present }
notice {a => 1}
