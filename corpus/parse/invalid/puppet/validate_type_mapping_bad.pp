type Runtime[ruby, "X"] = 1
