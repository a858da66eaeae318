# ARM-8 "Rebinding": none of the three rebind operations accepts a producer.
bindings rebind_with_producer {
  bind 'the meaning of life' to 42
  rebind 'the meaning of life' to 43
  bind alias 'the meaning of life' as 'the meaning of love' to 'all you need'
  bind renamed 'the meaning of life' as 'the answer' to optional 42
  # Without a producer all three are fine.
  when node 'kermit.example.com' {
    rebind 'the meaning of life'
    bind alias 'the meaning of life' as 'the meaning of love'
  }
}
