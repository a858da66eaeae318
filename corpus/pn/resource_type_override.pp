Resource[file] { mode => 1 }
