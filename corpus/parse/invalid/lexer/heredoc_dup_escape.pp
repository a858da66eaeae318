$a = @(END/tt)
text
END
