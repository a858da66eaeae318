# A site's entry point (ARM-8 "environments.pp"): which environments exist and where their
# files are. Each environment's own root manifest (manifests/site.pp here) declares its
# categories and layers.
site {
  Environment {
    modulepath => 'modules/dist:modules/site',
  }
  # production's files are in $confdir itself (the default envdir).
  environment { 'production': }
  # A branch checked out under environments/ is an environment of its own.
  dynamic_environments { "$confdir/environments": }
}
