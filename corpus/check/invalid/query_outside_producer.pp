bindings example {
  # A query produces a value; it cannot name what is bound.
  bind parameters Web[?? name == one] to Sql[one]
  bind parameters Web[one] to Sql[?? name == one]
}
