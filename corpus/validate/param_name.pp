class a($Foo) {}
