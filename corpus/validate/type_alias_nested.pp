class a { type X = Integer }
