

$a = 1



$b = 2   
	$c	=	3

class x {


  include y

}



