$a = "café"
