class a { function f() {} $x = 1 }
