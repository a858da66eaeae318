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
  # An arrow with a comment after it stays where it is: the comment is its line's.
  Package['chrony'] -> # must go first
  Service['ntp']
}
