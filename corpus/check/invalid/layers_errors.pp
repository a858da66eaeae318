site {
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'site': include => 'confdir:/other' },
    layer { 'modules':
      include => ['module:/*::default', 42],
      exlude  => 'module:/ntp::default',
    },
    layer { 'external': includes => 'enc:' },
  ]
}
