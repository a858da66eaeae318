bindings apache::default {
  bind 'apache::workers' to 8
}
