bindings extra {
  when virtual true {
    when node 'KERMIT.example.com' {
      bind 'tuning' to 'safe'
    }
  }
}
