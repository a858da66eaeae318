# ARM-9 "Data in Modules": the funny-hat module keeps its data in hiera.yaml and data/. No
# site { } is needed: ARM-9's default configuration gives the categories node,
# operatingsystem, osfamily, environment and common, and the layers site and modules (each with
# its hiera data).
site {
  environment { 'production': }
  environment { 'staging': }
}
