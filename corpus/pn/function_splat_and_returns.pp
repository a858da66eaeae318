function f(Integer *$a, $b = 1) >> Integer { 1 }
