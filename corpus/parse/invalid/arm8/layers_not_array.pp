site {
  bindings => [ 'site', layer { 'modules': include => "module:/*::default" } ]
}
