bindings apache::default {
  when osfamily 'debian' { bind 'apache::user' to 'www-data' }
  when datacentre 'ams' { bind 'apache::port' to 8080 }
}
