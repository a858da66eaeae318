# The common mistakes in a `bind`, each said as the fix (one block each: error recovery
# resumes after the block that holds an error).
bindings no_to { bind 'servers' ['ntp1', 'ntp2'] }
bindings fat_arrow { bind 'port' => 123 }
bindings equals { bind 'port' = 123 }
bindings colon { bind 'port' : 123 }
bindings value_word { bind 'port' value 123 }
bindings as_on_bind { bind 'iburst' as true }
bindings typed_key { bind Integer 'port' to 123 }
bindings no_parentheses { bind 'peers' to lookup 'ntp::servers' }
