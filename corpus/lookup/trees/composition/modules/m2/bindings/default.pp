bindings m2::default {
  bind 'a' to 2
}
