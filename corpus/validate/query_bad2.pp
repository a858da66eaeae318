File <| tag == "x" and 1 + 2 |>
