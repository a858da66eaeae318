# The environment comes from a fact; a request without it fails here, and so does the check (it
# evaluates this file as such a request). The environments are then unknown: each file gets its
# own rules, and nothing across files is guessed.
site {
  environment { 'production': }
  environment { 'edge': }
}
$environment = $::tier ? {
  'front' => 'edge',
  'back'  => 'production',
  default => fail("no tier fact for ${::fqdn}"),
}
