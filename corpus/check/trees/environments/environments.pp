# Two environments with their own root manifests and bindings: the rules across files run
# per environment, so each may declare its categories once.
site {
  environment { 'production': }
  environment { 'archive':
    envdir => "${confdir}/archive",
  }
  # Branches use the site's modules.
  dynamic_environments { "${confdir}/branches":
    modulepath => "${confdir}/modules",
  }
}
