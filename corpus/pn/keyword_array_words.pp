$a = [type, function]
