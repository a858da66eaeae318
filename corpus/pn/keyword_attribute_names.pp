notify { x: unless => 1, if => 2, class => 3 }
