class a($x = ($y = 1)) {}
