

$a = 1



$b = 2   
	$c	=	3

class x {


  include y

}



# Blanks inside a line: none inside `(` and `[` or before a comma, one after a comma, around
# an operator between two operands and inside a brace, one where there were several; none
# added or removed before a `[` after an operand.
foo( $a ,$b )
$h = {a => 1,  b => [ 1 ,2 ]}
$empty = [ ]
$nothing = { }
$access = $list[ 0 ]
$list_after_a_blank = $list [0]
if $a  == 1{
  notice( 'x' )
}
$list.each |$x|{notice($x)}
file {'/x': ensure => present}
$aligned_by_hand    = 1   # a comment keeps the blanks before it
$sum=$a+$b*-$c
$difference = $a-1
$negative = - 1
foo(*$args)
$matched=$a=~/x/
$choice=$a?{1=>'one',default=>'other'}
Package['ntp']->Service['ntp']
