# Each key passes `pbc check` and fails only when a request looks it up.
bindings default {
  bind 'type_error' to 1 + 'a'
  bind 'endless' to [1,2,3,4,5,6,7,8,9,10].map |$a| {
    [1,2,3,4,5,6,7,8,9,10].map |$b| {
      [1,2,3,4,5,6,7,8,9,10].map |$c| {
        [1,2,3,4,5,6,7,8,9,10].map |$d| {
          [1,2,3,4,5,6,7,8,9,10].map |$e| {
            [1,2,3,4,5,6,7,8,9,10].map |$f| { $a + $b }
          }
        }
      }
    }
  }
  bind 'no_match' to $::data_center ? { 'ams' => 1, 'fra' => 2 }
  bind 'failing' to fail("no value for ${::fqdn}")
  bind 'instance' to Type[Example::Service]
  bind 'from_query' to Example::Thing[?? tag == 'eu']
  bind 'strict_only' to "port ${::nope}"
  bind 'misspelt' to jion(['a', 'b'], ',')
  bind 'loop_a' to lookup('loop_b')
  bind 'loop_b' to lookup('loop_a')
  bind 'missing' to lookup('nothing::here')
  bind Integer, 'port' to $::port_fact
  multibind Hash[String, Integer], 'limits'
  bind 'cpu' to 4 in 'limits'
  when node "${::primary}" {
    bind 'cpu' to 8 in 'limits'
    bind 'role' to 'primary'
  }
  when node 'db01.example.com' {
    bind 'cpu' to 16 in 'limits'
    bind 'role' to 'db'
  }
  bind 'declares' to [1].map |$x| { notify { "n${x}": } }
  bind 'noisy' to with($::fqdn) |$n| { notice("looking up for ${n}"); warning('careful') ; $n }
}
