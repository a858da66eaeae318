site {
  categories {
    node        => "${::certname}",
    environment => true,
  }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'enc': include => ['enc:/classes', 'enc:/variables'] },
    layer { 'modules': include => ['module:/*::default', 'enc:/parameters'] },
  ]
}
