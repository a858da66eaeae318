Resource[file] { "a": mode => 1 }
