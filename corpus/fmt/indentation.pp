class ntp (
$servers = [],
      $enable = true,
) {
        package { "ntp":
  ensure => installed,
        }
  if $enable {
service { "ntp":
      ensure => running,
    }
      }
}
