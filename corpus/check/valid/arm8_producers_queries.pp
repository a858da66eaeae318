# ARM-8 "Producer", "Optional Producer", "Binding the Result of a Query", "Binding Dependencies".
bindings mymodule::default {
  multibind Hash[Type], "producer registry" as "producers"
  bind "the meaning of life" to producer Type[ConstantProducer] {
    producer_args => { 'value' => 42 },
    singleton     => true
  }
  bind Type[Producer[String]], "mymodule::uuid" to Type[MyUUIDProducer] in "producers"
  bind String, "request-id" to producer "mymodule::uuid"
  bind String, "request-id" to producer Type[MyUUIDProducer]
  bind parameters Web[one] to optional LimitedServices[web]
  bind parameters Web[one] to Sql[?? name == one]
  bind dependency File['/etc/ssh/sshd_config'] ~> Service['sshd']
  bind dependency [File['/a'], File['/b']] -> Service['sshd']
  bind "interpolated" to "${::fqdn}-blog"
  bind "computed" to $facts['os']['family'].downcase
}
