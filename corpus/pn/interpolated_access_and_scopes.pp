$x = "${facts["os"]["name"]}-$v"
$y = "${::fqdn}${x::y}"
