Integer [1]
