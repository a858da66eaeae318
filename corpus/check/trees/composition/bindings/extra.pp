bindings extra {
  when virtual true {
    when node 'KERMIT.example.com' {
      bind 'tuning' to 'safe'
    }
  }
  # `conflict_resolution => error` refuses a name twice, at any precedence: the message says
  # so (not "with the same precedence").
  multibind Hash[String, Integer], 'quotas' { conflict_resolution => error }
  bind 'disk' to 10 in 'quotas'
  when virtual true {
    bind 'disk' to 20 in 'quotas'
  }
}
