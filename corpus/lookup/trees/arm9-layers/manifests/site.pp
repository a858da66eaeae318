# ARM-9's layers with data: an override layer above the site, the modules' data with one module
# excluded and another's alternative data chosen, and a version 3 private hierarchy. A hiera
# directory may be at any depth below a module or the site (`module-hiera:/deep/data/for_x`); one
# no URI names (the module's spec/fixtures/hiera, whose hiera.yaml is broken) is not read.
site {
  categories {
    node        => $::fqdn,
    osfamily    => $::osfamily,
    environment => true,
  }
  bindings => [
    layer { 'override': include => 'confdir-hiera:/override' },
    layer { 'site': include => ['confdir-hiera:/', 'confdir-hiera:/teams/web', 'confdir:/default?optional'] },
    layer { 'modules':
      include => ['module-hiera:/*/', 'module-hiera:/alt/for_x', 'module-hiera:/deep/data/for_x',
                 'module-hiera:/empty', 'module:/*::default'],
      # ARM-9 improvements: `module-hiera:/worse/*` is all of module worse's data, here its
      # root's and extra/'s hiera.yaml.
      exclude => ['module-hiera:/bad/', 'module-hiera:/worse/*'],
    },
  ]
}
