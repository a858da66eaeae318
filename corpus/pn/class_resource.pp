class { foo: }
