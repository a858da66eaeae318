# One composition (D18): for each request only the bindings that win matter.
site {
  categories { dc => $::dc }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
