# A list whose closing bracket stands on a line of its own ends with a comma, as Puppet's style
# guide asks: attributes, parameters, array elements, hash entries, arguments.
class profile::db (
  String $user = 'postgres',
  Integer $port = 5432
) {
  file { '/etc/motd':
    ensure  => file,
    content => @(END)
      Managed by Puppet.
      | END
  }
  $settings = {
    'max_connections' => 100,
    'shared_buffers'  => '128MB' # a comment after the last entry stays after its comma
  }
  $packages = [
    'postgresql',
    'postgresql-contrib'
  ]
  notice(join($packages,
    ' '))
  # None where Puppet's grammar has none: a method's arguments, a type's parameters, a block.
  $joined = $packages.join(
    ', '
  )
  $kind = Variant[
    String,
    Integer
  ]
  if $port > 1024 {
    $level = $port ? 5432 => 'default'
  }
  # One entry in brackets that are not a hash's: no comma (`(` may be a group).
  $one = [
    'only'
  ]
  # Several bodies of one resource end with `;`, not a comma.
  file {
    '/tmp/a':
      ensure => file;
    '/tmp/b':
      ensure => directory
  }
}
