site {
  environment { 'production': }
  environment { 'staging': }
  environment { 'legacy': }
}
# The ENC says `legacy` for nodes it has not migrated; this site keeps them on production.
if $environment == 'legacy' and $role != 'frozen' {
  $environment = 'production'
}
