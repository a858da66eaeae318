# ARM-8 "How and Where are Bindings Defined": `default` is a bindings name, not the keyword.
bindings default {
  # bindings in categories
}
bindings mybindings {
}
bindings mymodule::default {
}
