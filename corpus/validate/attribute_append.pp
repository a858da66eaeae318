file { "a": mode +> 1 }
