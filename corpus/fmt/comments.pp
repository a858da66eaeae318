# The first line.
  # Indented wrongly.
class c (
  String $a, # at the end of a line
  /* a block
     comment */
  Integer $b = 1,
  # before the closing bracket
) {
    # alone in a block
}
node default {
# inside an empty block
}
$h = { # after an opening brace
  'k' => 'v', # after a comma
}   # after a closing brace   
