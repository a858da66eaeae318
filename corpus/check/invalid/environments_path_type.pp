# Environment paths are Strings (`modulepath` also an Array of them); `undef` and `default`
# leave an attribute at its default.
site {
  Environment {
    modulepath => 42,
  }
  environment { 'production':
    manifest    => ['site.pp'],
    bindingsdir => true,
  }
  environment { 'staging':
    modulepath  => ['modules', ['nested']],
    manifestdir => default,
    templatedir => undef,
  }
  environment { 'dev':
    modulepath => ['modules', '/opt/modules'],
  }
}
