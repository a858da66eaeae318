$x = @(END:base64)
  aGVsbG8
  | END
