file { "a": * => $a, * => $b }
