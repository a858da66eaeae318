foo ($x)
