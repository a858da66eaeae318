# Not under any environment's bindingsdir or modulepath: nothing reads it.
bindings default {
  bind 'motd' to 'old'
}
