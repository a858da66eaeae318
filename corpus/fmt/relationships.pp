# A relationship arrow stands at the start of its right operand's line, not at the end of the
# left one's (puppet-lint's arrow_on_right_operand_line).
Package['ntp'] ->
File['/etc/ntp.conf'] ~>
Service['ntp']
class profile::ntp {
  Package['ntp']
  -> File['/etc/ntp.conf']

  Exec['reload'] <-
    File['/etc/ntp.conf']
  # A comment after the arrow stays on its line, after the left operand.
  Package['chrony'] -> # must go first
  Service['ntp']
}
