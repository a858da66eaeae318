function f() >> Plan { 1 }
