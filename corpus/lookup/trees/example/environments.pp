site {
  environment { 'production': }
  environment { 'staging': }
}
# The agent's wish is honoured only for staging.
if $agent_environment == 'staging' {
  $environment = 'staging'
}
