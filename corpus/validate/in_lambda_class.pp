$x.each |$a| { class b {} }
