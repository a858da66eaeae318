# The branch has no data_center category and only the modules layer above the defaults.
site {
  bindings => [
    layer { 'branch': include => 'confdir:/default' },
    layer { 'modules': include => 'module:/*::default' },
  ]
}
