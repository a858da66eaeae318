site {
  categories { dc => $::dc }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
