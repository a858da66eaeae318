# Named, typed, anonymous and inferred bindings (D12), with every kind of producer.
bindings bind_forms {
  bind 'answer' to 42
  bind Integer, 'port' to 0x1F90
  bind Float, 'ratio' to -0.5
  bind 'greeting' to "hello ${::fqdn}"
  bind 'servers' to ['0.pool.ntp.org', '1.pool.ntp.org']
  bind 'settings' to { 'b' => 1, 'a' => [true, undef] }
  bind Type[My::Service] to Type[My::Service::Impl]
  bind 'service' to producer Type[My::ServiceProducer]
  bind 'named producer' to producer 'my::producer'
  bind 'maybe' to optional $::custom_fact
  bind abstract 'must be bound'
  bind override 'replaced' to 'new' { transformer => |$x| { upcase($x) } }
}
