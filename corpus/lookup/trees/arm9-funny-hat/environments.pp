# ARM-9 "Data in Modules": the funny-hat module. No site: ARM-9's default configuration
# (categories node, operatingsystem, osfamily, environment, common; layers site and modules,
# each with its hiera data).
site {
  environment { 'production': }
  environment { 'staging': }
}
