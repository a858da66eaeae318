node a { "x" }
