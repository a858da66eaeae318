# A `}` is missing after `$extra`: the interpolation runs on to the resource's closing brace and
# the string never closes. Like Puppet, pbc reports where scanning of the string last resumed.
exec { 'db-sync':
  command => "manage ${extra,
  path    => '/usr/bin',
}
