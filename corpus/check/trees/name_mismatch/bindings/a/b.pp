# bindings/a/b.pp holds `bindings a::b`.
bindings a::c {
  bind 'a::greeting' to 'hello'
}
