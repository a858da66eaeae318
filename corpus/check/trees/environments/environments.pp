# Two environments with their own root manifests and bindings: the rules across files run
# per environment, so each may declare its categories once.
site {
  environment { 'production': }
  environment { 'archive':
    envdir => "${confdir}/archive",
  }
  dynamic_environments { "${confdir}/branches": }
}
