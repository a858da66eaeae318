$x = "${true}"
