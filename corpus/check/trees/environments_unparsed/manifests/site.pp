site {
  categories { dc => $::dc }
}
