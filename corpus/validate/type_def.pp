type Foo inherits Bar {}
