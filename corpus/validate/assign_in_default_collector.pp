class a($x = [File <| title == ($y = 1) |>]) {}
