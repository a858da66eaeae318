File <| tag =~ "x" |>
