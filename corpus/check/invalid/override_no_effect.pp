bindings example {
  rebind override 'the meaning of life'
  bind alias 'the meaning of life' as override 'the meaning of love'
}
