class ntp($servers = [], $iburst = false) {
  notice($servers)
}
