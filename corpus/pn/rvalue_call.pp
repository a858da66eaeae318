$x = foo ($y)
