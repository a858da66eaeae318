site {
  environment { 'production': }
  environment { 'staging': }
  environment { 'legacy': }
  # A branch checked out under the tree's environments/ directory is an environment; it
  # finds modules in its own checkout first, then the site's.
  dynamic_environments { "${confdir}/environments":
    modulepath => "modules:${confdir}/modules",
  }
}
# The ENC says `legacy` for nodes it has not migrated; this site keeps them on production.
if $environment == 'legacy' and $role != 'frozen' {
  $environment = 'production'
}
