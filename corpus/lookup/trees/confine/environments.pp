# The modules are another tree's, beside this one: ARM-8 lets a tree name paths outside itself
# (/etc/puppet/modules is the usual case); --confine refuses them, naming the attribute.
site {
  environment { 'production': modulepath => '../environments/shared/modules' }
}
