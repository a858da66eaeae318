class foo {
  $x = [1, 2
