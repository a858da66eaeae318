# A class's or define's parameters, one to a line: their `=`s stand in one column, one space
# after the longest (Puppet's style guide: "the equals sign should be aligned"); one blank
# between a type and its parameter.
class ntp (
  Boolean $broadcastclient = false,
  Optional[Stdlib::Absolutepath]   $config_dir = undef,
  $servers,
  String $package_ensure    =  'present',
  Hash $options = {
    'iburst' => true,
    'prefer'=> false,
  },
) {
  # Elsewhere an `=` is not aligned.
  $a   = 1
  $bc  = 2
}

define ntp::peer (String $address, Integer $port = 123) {
}

# Two on one line align neither.
define ntp::key (
  $id = 1, $type = 'md5',
  $secret = undef,
) {
}
