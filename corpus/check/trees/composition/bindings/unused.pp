# No layer includes this file, but it conflicts with itself wherever it is included.
bindings unused {
  when node 'kermit.example.com' { bind 'x' to 1 }
  when node 'kermit.example.com' { bind 'x' to 2 }
}
