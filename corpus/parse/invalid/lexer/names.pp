$a = Foo::bar
$b = ::
