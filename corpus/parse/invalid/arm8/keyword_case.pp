# D2: `AS`, `TO` and `IN` are written in lower case.
bindings mymodule::default {
  multibind Array[String], "names" AS "mymodule::list-of-names"
  bind to 'Mary' IN 'mymodule::list-of-names'
  bind 'x' TO 1
}
