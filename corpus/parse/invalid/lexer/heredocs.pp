$a = @(END:x)
text
END
$b = @(END
$c = @(END/q)
text
END
$d = @()
text
