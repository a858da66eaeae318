# The environment comes from a fact; without a request's facts this file fails, so the check
# cannot list the environments and checks the directory as one tree (a warning says so).
site {
  environment { 'production': }
  environment { 'edge': }
}
$environment = $::tier ? {
  'front' => 'edge',
  'back'  => 'production',
  default => fail("no tier fact for ${::fqdn}"),
}
