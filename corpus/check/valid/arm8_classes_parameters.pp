# ARM-8 "Binding Classes" and "Binding Parameters"; the instance example binds Sql once (a type
# may produce a target's parameters only once).
bindings mymodule::default {
  include ntp
  include [ntp, ssh]
  exclude apache
  exclude [apache, nginx]

  bind parameters ntp to {
    autoupdate  => false,
    enable      => true,
    servers     => [
      "0.us.pool.ntp.org iburst",
      "1.us.pool.ntp.org iburst",
      "2.us.pool.ntp.org iburst",
      "3.us.pool.ntp.org iburst"
    ]
  }
  bind parameters ntp to { autoupdate => false }
  bind parameters ntp to { enable => true }

  bind parameters Web[one] to Sql[one] {
    map => {dbuser => user }
  }
  bind map Web to Sql {
    key_in_Web => key_in_Sql
  }
  bind parameters Web[one] to DbUserInfo[general]
  bind map X to Y {
    a => a
  }
  bind map X to Z {
    b => b,
    c => c
  }
  bind parameters X to Y[some_y]
  bind parameters X to Z[some_z]
}
