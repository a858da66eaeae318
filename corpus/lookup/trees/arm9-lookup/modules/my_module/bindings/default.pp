# ARM-9 improvements: the lookup() signatures, each on data in a module.
bindings my_module::default {
  bind 'typed_default' to lookup('my_module::my_name', String, 'x')
  bind 'options_default' to lookup({'key' => 'my_module::my_module_name', 'default' => 'x'})
  bind 'first_found' to lookup({'first_found' => ['site_params::x', 'site_params::y'], 'default' => 'x'})
  bind 'type_string' to lookup('ports', 'Array[Integer]')
  bind 'wrong_type' to lookup('ports', 'Array[String]')
  bind 'with_name' to lookup({'first_found' => ['site_params::x', 'site_params::y']}) |$name, $result| { "${name}: ${result}" }
  bind 'with_default' to lookup('nothing', Data, 'd') |$name, $result, $default| { [$name, $result, $default] }
  bind 'accepts_undef' to [lookup('nothing', {'accept_undef' => true})]
}
