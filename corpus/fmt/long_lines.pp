# Lines past 140 characters break at their outermost bracket that ends past the width: one entry
# to a line, a comma after the last where Puppet's grammar allows one, arrows aligned.
class profile::web (String $server_name = 'www.example.com', Array[String] $aliases = ['a.example.com', 'b.example.com'], Hash[String, Integer] $ports = {}) {
  file { '/etc/nginx/sites-available/default': ensure => file, owner => 'root', mode => '0644', backup => false, content => template('profile/nginx.erb') }
  ensure_packages(['nginx', 'nginx-extras', 'libnginx-mod-http-headers-more-filter', 'libnginx-mod-http-geoip', 'ssl-cert', 'curl', 'wget', 'vim'])
  $by_family = $facts['os']['family'] ? { 'Debian' => 'apt-get install --yes --no-install-recommends', 'RedHat' => 'dnf install -y', default => 'true' }
  $interfaces = $facts['networking']['interfaces'].filter |$name, $iface| { $name =~ /^eth/ and $iface['ip'] != undef and $iface['netmask'] != undef }
  # A method's arguments get no trailing comma: Puppet's grammar has none there.
  $joined = $aliases.map |$a| { "${a}.internal" }.join(', and then a separator long enough to push the line past the width of the page', "\n")
  # A condition with no bracket to break breaks before an `and` or an `or`, as late as fits.
  if $server_name != 'www.example.com' or $aliases != [] or $ports['http'] != 80 or $ports['https'] != 443 or $facts['os']['family'] == 'Debian' {
    notice('custom')
  }
  # Written over several lines, a list stays so; a string, a comment and a heredoc's line are never broken.
  $short = [
    1, 2, 3,
  ]
  fail("A failure message that cannot be wrapped at all because it is one string and longer than the width of the page, which is 140 characters wide")
  notice($server_name) # a comment at the end of the line that makes it longer than one hundred and forty characters is left where it is, as it was
  $motd = join([$server_name, 'a string that fills the line and more', 'and another one that pushes it past the width of the page, too', @(END)])
    Welcome to ${server_name}.
    | END
}
