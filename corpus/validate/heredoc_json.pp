$x = @(END:json)
  {"a": }
  | END
