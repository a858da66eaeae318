# Every error in a file is reported, each at its own line.
bindings mymodule::default {
  bind abstract varibles to ['a']
  bind 'ok' to 1
  bind typo_key to 2
  include 3
}
