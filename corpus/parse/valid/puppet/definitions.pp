class web::server(String $root = "/var/www", $port = 80) inherits web {
  notify { "x": message => "port $port" }
  class inner { }
  define item($x,) { }
}
class foo inherits default { }
define mydef { }
define other(Array[String] $a, *$rest) { }
node /^web\d+$/, "db.example.com", default, 10.0.0.1, foo-bar { }
node basic inherits other { }
function mymod::inc(Integer $x) >> Integer { $x + 1 }
type Port = Integer[1, 65535]
type MyObj = { attributes => { a => Integer } }
type Sub = Base { attributes => { b => String } }
type Alias2 = Variant[Integer,
  String,]
type Runtime[ruby, 'Foo'] = Integer
$x = private
