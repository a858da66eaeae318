bindings mymodule::default {
  include 42
}
