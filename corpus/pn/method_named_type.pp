$x.type
