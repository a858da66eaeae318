File[a] -> $x = 1
