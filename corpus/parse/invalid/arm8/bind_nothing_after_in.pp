# `in` names the multibind to contribute to.
bindings users {
  bind to 'root' in
}
