bindings default {
  when osfamily 'debian' { bind 'packages' to ['apt'] }
  when osfamly 'redhat' { bind 'packages' to ['yum'] }
}
