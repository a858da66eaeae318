bindings default {
  when osfamily 'debian' { bind 'packages' to ['apt'] }
  when osfamily 'redhat' { bind 'packages' to ['yum'] }
}
