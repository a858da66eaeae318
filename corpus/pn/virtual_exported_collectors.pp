@@sshkey { $fqdn: key => $k }
@file { "a": }
File <| tag == "web" |> { mode => 1 }
File <<| |>>
@File { a => 1 }
