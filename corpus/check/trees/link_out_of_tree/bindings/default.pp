# modules/outside is a link out of this tree: every subcommand leaves it unread, with a warning.
bindings default {
  bind 'x' to 1
}
