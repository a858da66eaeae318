class base {}
