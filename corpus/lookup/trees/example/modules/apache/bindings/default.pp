bindings apache::default {
  bind Integer, 'apache::workers' to 4
  when data_center 'fra' {
    bind Integer, 'apache::workers' to 16
  }
  bind 'apache::docroot' to '/srv/www'
  multibind Array[String], 'contacts' { uniq => true }
  bind to ['webmaster@example.com', 'ops@example.com'] in 'contacts'
  multibind Hash[String, Integer], 'apache::ports'
  bind 'http' to 80 in 'apache::ports'
  when virtual false {
    bind 'https' to 443 in 'apache::ports'
  }
  bind 'apache::server_name' to $::fqdn {
    transformer => |$name| { upcase($name) }
  }
  include apache
}
