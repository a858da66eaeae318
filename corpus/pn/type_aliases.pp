type MyType = Integer
type MyObj = { attributes => { a => Integer } }
