$a = 10, notice(x)
