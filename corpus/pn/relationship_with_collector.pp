Package["x"] -> Service <| tag == "web" |>
