@$x
@@notice('x')
