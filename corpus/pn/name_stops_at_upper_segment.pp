$x = foo::Bar
