$x = @(END:pp)
  $a = 
  | END
