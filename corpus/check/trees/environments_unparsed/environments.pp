# Two environments that read the same manifest and modules; `other` also reads a bindings file
# that does not parse. The rules across files are run once for files two environments share,
# but `other` must stay silent about what its unparsed file might bind, where `production`
# reports the abstract binding nothing makes concrete.
site {
  environment { 'production': }
  environment { 'other':
    bindingsdir => "${confdir}/other",
  }
}
