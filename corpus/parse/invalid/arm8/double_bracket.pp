# ARM-8 "Overriding Multibindings" as written in the spec: `]]`.
bindings mymodule::default {
  multibind Hash[TypeValidatorService]], 'syntax' AS 'syntax-validators'
}
