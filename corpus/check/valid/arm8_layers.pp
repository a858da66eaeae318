# ARM-8 "Composition of Bindings" and "Selecting Bindings with include and exclude".
site {
  bindings => [
    layer { 'site': include => "confdir:/default" },
    layer { 'enc':  include => "enc:" },
    layer { 'modules':
      include => [
        "module:/*::default",
        "module:/MySpecial::load_balanced",
      ],
      exclude => [
        "module:/myspecial::default"
      ]
    }
  ]
}
