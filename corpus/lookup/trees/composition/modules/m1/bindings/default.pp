bindings m1::default {
  bind 'a' to 1
}
