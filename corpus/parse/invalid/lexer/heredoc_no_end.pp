$a = @(END)
text without an end tag
