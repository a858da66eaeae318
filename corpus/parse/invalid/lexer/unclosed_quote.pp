$a = "unclosed
$b = 1
