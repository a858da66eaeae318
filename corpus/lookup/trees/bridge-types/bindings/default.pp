# Values whose Puppet types JSON alone would lose (a Sensitive one comes from data/common.yaml), for Puppet's Hiera backend (puppet/pbc):
# scripts/puppet-bridge.sh checks that Puppet's lookup through it gets each exactly.
bindings default {
  bind 'types::float' to 1.0
  bind 'types::integer' to 1
  bind 'types::big' to 9007199254740993
  bind 'types::negative_float' to -0.5
  bind 'types::string_number' to '1'
  bind 'types::int_keys' to { 1 => 'one', 2 => 'two' }
  bind 'types::mixed_keys' to { 'a' => 1, 2 => 'b' }
  bind 'types::ordered' to { 'z' => 1, 'a' => 2, 'm' => 3 }
  bind 'types::nested' to [{ 'k' => [1, 2.5, true, 'x'] }, []]
  bind 'types::regexp' to /^web\d+$/
  bind 'types::ptype_key' to { '__ptype' => 'not a type' }
  bind 'types::failing' to 1 / 0
  # A Puppet server's compile has $server_facts (the module passes them); `puppet lookup`'s is
  # empty, and so is pbc's when the facts do not give it.
  bind 'types::served_by' to "server ${server_facts['servername']}"
  when environment 'production' {
    bind 'types::conditional' to 'production'
  }
}
