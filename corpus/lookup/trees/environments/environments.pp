# One checkout per environment: `master` serves production and staging, branches under
# `branches/` are dynamic environments. Variables set here are local to this file, but the
# environment resources below may use them.
$checkouts = "${confdir}/branches"
site {
  # Every environment's modules: its own first, then the site's shared ones (relative paths
  # are resolved against each environment's envdir).
  Environment {
    modulepath => 'modules:../shared/modules',
  }
  environment { 'production':
    envdir => "${confdir}/master",
  }
  # Staging runs master's code with its own root manifest and bindings directory.
  environment { 'staging':
    envdir      => "${confdir}/master",
    manifest    => 'staging.pp',
    bindingsdir => 'staging-bindings',
  }
  # Declared, but nothing is checked out for it.
  environment { 'retired':
    envdir => "${confdir}/retired",
  }
  dynamic_environments { $checkouts:
    modulepath => ['modules', "${confdir}/shared/modules"],
  }
}
$environment = $agent_environment ? {
  undef   => 'production',
  default => $agent_environment,
}
