bindings default {
  bind 'a' to 1
}
