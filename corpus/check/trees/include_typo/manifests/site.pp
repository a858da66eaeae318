# A typo in the wildcard include: every module's bindings would be dropped without a word.
site {
  categories { dc => $::dc }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::defualt' },
  ]
}
