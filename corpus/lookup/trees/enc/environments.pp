site {
  environment { 'production': }
  environment { 'staging': }
  environment { 'legacy': }
  # A branch checked out under the tree's environments/ directory is an environment.
  dynamic_environments { "${confdir}/environments": }
}
# The ENC says `legacy` for nodes it has not migrated; this site keeps them on production.
if $environment == 'legacy' and $role != 'frozen' {
  $environment = 'production'
}
