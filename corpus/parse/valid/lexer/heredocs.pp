$a = @(END)
  Hello $x
  World\n
  |- END
$b = @("END":json/tn$)
    {"a": "${x}\t\$y"}
    | END
notice(@(A), @(B))
first
A
second
B
$c = @("X"/L)
  one \
  two
  | X
$d = @(END)
hello END
