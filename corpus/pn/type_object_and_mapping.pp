type Foo = Object[{ attributes => { a => Integer } }]
type Runtime[ruby, "X"] = Object
