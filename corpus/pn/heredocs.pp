$a = @(END)
  Hello $x
  World\n
  |- END
$b = @("END":json/tn$)
    {"a": "${x}\t\$y"}
    | END

